// What a view of the page is: a title for the tab and the heading, and a render function that
// fetches through api.ts and returns the view's element. main.ts's router calls it for `#/name/arg`
// and again when the store changes (live updates).

export interface ViewContext {
  /** What follows `#/name/` in the address, decoded (a memory id, a candidate id), if any. */
  arg?: string;
  /** The query after the hash route (`#/search?q=redis`). */
  params: URLSearchParams;
  /** Says something to screen readers and in the status line (polite live region). */
  announce(message: string): void;
  /** Renders the current view again (after an accept, say). */
  refresh(): void;
  /**
   * Puts the view's filters in the address without drawing again, so a redraw (a live update when
   * the store changes, a reload, a shared link) shows what the reader chose. Empty values are left out.
   */
  keep(params: Record<string, string>): void;
}

export interface View {
  title: string;
  render(ctx: ViewContext): Promise<HTMLElement>;
}
