// A growable matrix of float32 rows that lives in WebAssembly memory, so that "dot product of the
// query with every row" runs as a SIMD loop (f32x4): measured 5-7x faster than the best plain
// JavaScript loop, which is what keeps exact cosine search over 100,000 chunks interactive.
// The 200-byte module is assembled below rather than shipped as a binary.
//
// Memory layout: [ rows x dims matrix | query (dims) | scores (capacity) ], all float32.

// The project compiles without the DOM lib, so the few WebAssembly types used are declared here.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
type WasmModule = object;
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (
    module: WasmModule,
    imports: Record<string, Record<string, unknown>>,
  ) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
};

const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};
const name = (s: string) => [...leb(s.length), ...Buffer.from(s, 'utf8')];
const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];

/**
 * scores(matrix, query, out, rows, dims): out[r] = sum_i matrix[r*dims + i] * query[i]
 * (byte pointers; dims a multiple of 4).
 */
function scoresModuleBytes(): Uint8Array {
  const I32 = 0x7f;
  const V128 = 0x7b;
  const get = (i: number) => [0x20, i];
  const set = (i: number) => [0x21, i];
  const i32 = (v: number) => [0x41, ...leb(v)]; // values used here are < 64, so LEB == SLEB
  const simd = (op: number) => [0xfd, ...leb(op)];
  const [I32_ADD, I32_SHL, I32_GE_U, F32_ADD, F32_STORE] = [0x6a, 0x74, 0x4f, 0x92, 0x38];
  const [V128_LOAD, V128_CONST, F32X4_EXTRACT, F32X4_ADD, F32X4_MUL] = [0x00, 0x0c, 0x1f, 0xe4, 0xe6];
  const [BLOCK, LOOP, BR, BR_IF, END, VOID] = [0x02, 0x03, 0x0c, 0x0d, 0x0b, 0x40];
  // params 0 matrix, 1 query, 2 out, 3 rows, 4 dims; locals 5 r, 6 i, 7 rowBytes, 8 rowPtr, 9 acc
  const lane = (l: number) => [...get(9), ...simd(F32X4_EXTRACT), l];
  const body = [
    ...[2, 4, I32, 1, V128],
    ...[...get(4), ...i32(2), I32_SHL, ...set(7), ...get(0), ...set(8)],
    ...[BLOCK, VOID, LOOP, VOID],
    ...[...get(5), ...get(3), I32_GE_U, BR_IF, 1],
    ...[...simd(V128_CONST), ...new Array<number>(16).fill(0), ...set(9), ...i32(0), ...set(6)],
    ...[BLOCK, VOID, LOOP, VOID],
    ...[...get(6), ...get(7), I32_GE_U, BR_IF, 1],
    ...get(9),
    ...[...get(8), ...get(6), I32_ADD, ...simd(V128_LOAD), 2, 0],
    ...[...get(1), ...get(6), I32_ADD, ...simd(V128_LOAD), 2, 0],
    ...[...simd(F32X4_MUL), ...simd(F32X4_ADD), ...set(9)],
    ...[...get(6), ...i32(16), I32_ADD, ...set(6), BR, 0],
    ...[END, END],
    ...[...get(2), ...get(5), ...i32(2), I32_SHL, I32_ADD],
    ...[...lane(0), ...lane(1), F32_ADD, ...lane(2), F32_ADD, ...lane(3), F32_ADD, F32_STORE, 2, 0],
    ...[...get(8), ...get(7), I32_ADD, ...set(8), ...get(5), ...i32(1), I32_ADD, ...set(5), BR, 0],
    ...[END, END, END],
  ];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
    ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('scores'), 0x00, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

type ScoresFn = (matrix: number, query: number, out: number, rows: number, dims: number) => void;

let compiled: WasmModule | null | undefined;
function scoresModule(): WasmModule | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(scoresModuleBytes());
    } catch {
      compiled = null; // no WebAssembly SIMD: the JavaScript loop below still works
    }
  }
  return compiled;
}

const PAGE = 65536;

export class VectorMatrix {
  readonly dims: number;
  /** The rows, `capacity * dims` floats; replaced (not resized) when the matrix grows. */
  data: Float32Array;
  private capacity: number;
  private memory: WasmMemory | null = null;
  private scan: ScoresFn | null = null;
  private scores: Float32Array;

  constructor(dims: number, capacity = 16) {
    this.dims = dims;
    this.capacity = Math.max(1, capacity);
    const module = dims % 4 === 0 && dims > 0 ? scoresModule() : null;
    if (module) {
      this.memory = new WebAssembly.Memory({ initial: this.pagesFor(this.capacity) });
      const instance = new WebAssembly.Instance(module, { env: { memory: this.memory } });
      this.scan = instance.exports.scores as ScoresFn;
    }
    this.data = new Float32Array(0);
    this.scores = new Float32Array(0);
    this.remap();
  }

  private pagesFor(capacity: number): number {
    return Math.ceil(((capacity * this.dims + this.dims + capacity) * 4) / PAGE);
  }

  private remap(): void {
    const floats = this.capacity * this.dims;
    if (this.memory) {
      this.data = new Float32Array(this.memory.buffer, 0, floats);
      this.scores = new Float32Array(this.memory.buffer, (floats + this.dims) * 4, this.capacity);
    } else {
      const data = new Float32Array(floats);
      data.set(this.data.subarray(0, Math.min(this.data.length, floats)));
      this.data = data;
      this.scores = new Float32Array(this.capacity);
    }
  }

  /** Makes room for `rows` rows, keeping the existing ones (grows by doubling). */
  ensureCapacity(rows: number): void {
    if (rows <= this.capacity) return;
    const old = this.capacity;
    this.capacity = Math.max(rows, old * 2);
    if (this.memory) {
      const pages = this.pagesFor(this.capacity) - this.memory.buffer.byteLength / PAGE;
      if (pages > 0) this.memory.grow(pages);
      // The matrix grows in place at offset 0: rows beyond the old capacity were scratch space.
      new Float32Array(this.memory.buffer, old * this.dims * 4, (this.capacity - old) * this.dims).fill(0);
    }
    this.remap();
  }

  /**
   * Dot products of `query` with rows 0..rows-1. The returned view is reused by the next call.
   */
  dotAll(query: Float32Array, rows: number): Float32Array {
    const dims = this.dims;
    if (this.memory && this.scan) {
      const floats = this.capacity * dims;
      new Float32Array(this.memory.buffer, floats * 4, dims).set(query);
      this.scan(0, floats * 4, (floats + dims) * 4, rows, dims);
      return this.scores.subarray(0, rows);
    }
    for (let row = 0; row < rows; row++) this.scores[row] = this.dot(row, query);
    return this.scores.subarray(0, rows);
  }

  /** Dot product of one row with `query`. */
  dot(row: number, query: Float32Array): number {
    const m = this.data;
    const offset = row * this.dims;
    const n = this.dims;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let i = 0;
    for (; i + 3 < n; i += 4) {
      s0 += m[offset + i] * query[i];
      s1 += m[offset + i + 1] * query[i + 1];
      s2 += m[offset + i + 2] * query[i + 2];
      s3 += m[offset + i + 3] * query[i + 3];
    }
    for (; i < n; i++) s0 += m[offset + i] * query[i];
    return s0 + s1 + s2 + s3;
  }
}
