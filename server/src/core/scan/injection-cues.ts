// Cue classes for the learned injection detector (docs/injection-model.md): words that play the
// same part in an attack, in several languages, share one extra feature ("forget", "vergiss" and
// "olvida" are all OVERRIDE). Words a model has never seen in training then still carry the weight
// their class learned from the others: this is what lets it recognise an attack family it was not
// trained on. Written from general knowledge of prompt attacks, not from the evaluation data. Pure.

/** The classes; a word's class is the index + 1 (0 = no class). */
const LEXICON: ReadonlyArray<readonly [string, string]> = [
  // Override what came before.
  [
    'override',
    'ignore ignoring disregard forget override bypass circumvent abandon discard instead ignoriere ignoriert ignorieren vergiss vergessen vergesst oublie oubliez ignorez olvida olvide olvidar ignora ignorar dimentica dimenticare esqueça esqueca ignore negeer vergeet zaboravi ignoriraj забудь забудьте игнорируй игнорируйте unutma yoksay quên zignoruj zapomnij abaikan lupakan balewalain kalimutan अनदेखा नज़रअंदाज़ नजरअंदाज भूल भूलो भूल जाओ उपेक्षा উপেক্ষা ভুলে ভুলে যান ভুলে যাও تجاهل انسى انس تجاهلي',
  ],
  // What came before.
  [
    'prior',
    'previous prior above earlier preceding before original initial vorherigen vorherige bisherigen obigen précédentes précédent anteriores anterior precedenti precedente vorige предыдущие выше önceki trước poprzednie poprzednich wcześniejsze sebelumnya nakaraang naunang पिछले पिछली पिछला पूर्व पहले ऊपर পূর্ববর্তী আগের পূর্বের السابقة السابق أعلاه',
  ],
  // The agent's orders.
  [
    'directive',
    'instruction instructions rules guidelines directives prompt prompts commands orders programming constraints anweisungen anweisung aufträge regeln consignes instrucciones instrucción istruzioni instruções instrucoes instructies instrukcije инструкции указания talimatlar instrukcje instrukcji polecenia instruksi petunjuk perintah tagubilin utos निर्देश निर्देशों निर्देशो नियम नियमों आदेश নির্দেশ নির্দেশাবলী নির্দেশনা নিয়ম التعليمات تعليمات الأوامر الأوامر القواعد',
  ],
  // What an attacker wants out.
  [
    'secret',
    'password passwords passphrase passcode secret secrets credentials credential confidential passwort kennwort geheim geheimnis contraseña clave segreto senha segredo wachtwoord lozinka пароль секрет şifre parola hasło hasla haslo sandi rahasia lihim पासवर्ड गुप्त रहस्य कुंजी পাসওয়ার্ড গোপন গোপনীয় المرور السر سرية السرية السري',
  ],
  // Make it show something.
  [
    'reveal',
    'reveal print repeat show output display tell disclose leak spell recite dump expose zeige zeig verrate wiederhole révèle affiche répète muestra revela repite mostra rivela ripeti mostre revele покажи раскрой повтори göster söyle pokaż ujawnij powtórz tunjukkan ungkapkan ulangi ipakita sabihin बताओ बताएं बताइए बताइये दिखाओ दिखाएं दोहराओ दोहराएं प्रकट বলুন বলো দেখাও দেখান প্রকাশ পুনরাবৃত্তি اكشف أظهر اظهر كرر أخبرني اخبرني اعرض',
  ],
  // The model and its setup.
  [
    'agent',
    'assistant ai chatbot gpt chatgpt llm dan jailbreak jailbroken sudo asystent asisten सहायक সহকারী مساعد',
  ],
  // Addressing the reader.
  [
    'you',
    'you your yours yourself du dich dir dein deine deinen euch tu toi vous votre vos tú usted tus vosotros voi tuo tua você vocês jij jouw ты вы твой ваш sen sana senin bạn ty twoje anda kamu ikaw mo तुम आप तुम्हारा तुम्हारे आपका आपके तुम्हें आपको तू তুমি আপনি তোমার আপনার তোমাকে আপনাকে أنت انت أنتِ لك',
  ],
  // The reader's answer.
  [
    'response',
    'response responses answer answers reply replies output antwort antworten réponse réponses respuesta respuestas risposta resposta antwoord odgovor ответ cevap odpowiedź odpowiedz jawaban sagot उत्तर जवाब প্রতিক্রিয়া উত্তর الإجابة الرد إجابة',
  ],
  // Changing who the agent is or what mode it is in.
  [
    'mode',
    'mode roleplay pretend persona unrestricted uncensored unfiltered unlimited restrictions limitations filters modus modo режим tryb मोड মোড وضع',
  ],
  // Harmful ends that jailbreaks ask for.
  [
    'harm',
    'bomb bombs weapon weapons explosive explosives kill killing murder poison malware ransomware virus keylogger exploit exploits hack hacking phishing steal stealing fraud scam drugs meth cocaine suicide terrorist terrorism illegal illegally harmful unethical dangerous counterfeit launder laundering',
  ],
  // Moving data or money out, or acting with the user's rights.
  ['act', 'send forward transfer upload grant deposit wire exfiltrate webhook'],
  // Pressure.
  [
    'urgent',
    'important urgent immediately attention priority critical wichtig sofort urgente importante subito immédiatement срочно важно ważne penting mahalaga महत्वपूर्ण तुरंत জরুরি গুরুত্বপূর্ণ مهم عاجل فورا',
  ],
];

/** The number of classes (ids 1..CUE_CLASSES). */
export const CUE_CLASSES = LEXICON.length;

/** The class names, by id - 1 (for reasons and tests). */
export const CUE_NAMES: readonly string[] = LEXICON.map(([name]) => name);

/**
 * Word hash -> class id, for words hashed the way injection-features.ts hashes a word (FNV-1a over
 * UTF-16 units from the FNV prime). A word in two classes keeps its first.
 */
export function cueTable(hashWord: (word: string) => number): Map<number, number> {
  const table = new Map<number, number>();
  LEXICON.forEach(([, words], i) => {
    for (const w of words.split(' ')) {
      const h = hashWord(w);
      if (!table.has(h)) table.set(h, i + 1);
    }
  });
  return table;
}

/**
 * Cue words of scripts written without spaces between words (Chinese, Japanese, Thai) or with
 * particles joined to them (Korean): found as substrings of a run of such letters, since the run
 * is one "word" to the tokenizer. Same classes and same origin as LEXICON: hand-written from
 * general knowledge of prompt attacks ("ignore the previous instructions", "system prompt",
 * "reveal the password", "you are now"), not taken from any data set.
 */
const UNSPACED_LEXICON: ReadonlyArray<readonly [string, string]> = [
  ['override', '忽略 无视 無視 忽視 忘记 忘記 忘れ 無視して 무시 잊어 잊으 ละเว้น เพิกเฉย ลืม ไม่ต้องสนใจ'],
  ['prior', '之前 以前 先前 上述 上面 前の 以前の 上記 이전 앞의 위의 ก่อนหน้า ข้างต้น'],
  ['directive', '指令 指示 说明 說明 规则 規則 命令 提示词 プロンプト 지시 지침 명령 규칙 프롬프트 คำสั่ง กฎ'],
  ['secret', '密码 密碼 口令 パスワード 秘密 机密 機密 暗証 비밀번호 암호 비밀 รหัสผ่าน ความลับ'],
  [
    'reveal',
    '告诉 告訴 显示 顯示 透露 泄露 洩露 重复 重複 教えて 表示 明かし 알려 공개 보여 반복 말해 บอก เปิดเผย แสดง',
  ],
  ['agent', '助手 人工智能 アシスタント 어시스턴트 인공지능 ผู้ช่วย'],
  ['you', '你 您 あなた 君 당신 너 คุณ'],
  ['response', '回答 回复 回覆 答案 返答 답변 응답 대답 คำตอบ'],
  ['mode', '模式 モード 모드 โหมด 角色'],
  ['harm', '炸弹 炸彈 爆弾 武器 毒药 病毒 폭탄 무기 해킹 ระเบิด อาวุธ'],
  ['act', '发送 發送 转账 送信 送金 보내 전송 송금 ส่ง โอน'],
  ['urgent', '重要 立即 緊急 紧急 直ちに 중요 즉시 긴급 สำคัญ ด่วน'],
];

/** Whether `c` (a UTF-16 unit) is a letter of a script whose cue words are found as substrings. */
export function isUnspacedScript(c: number): boolean {
  return (
    (c >= 0x0e00 && c < 0x0e80) || // Thai
    (c >= 0x1100 && c < 0x1200) || // Hangul jamo
    (c >= 0x3040 && c < 0x3100) || // Hiragana, Katakana
    (c >= 0x3130 && c < 0x3190) || // Hangul compatibility jamo
    (c >= 0x3400 && c < 0xa000) || // CJK ideographs
    (c >= 0xac00 && c < 0xd7b0) || // Hangul syllables
    (c >= 0xf900 && c < 0xfb00) // CJK compatibility ideographs
  );
}

/** The substrings of UNSPACED_LEXICON, each read through `read` (the detector's normalisation),
 * with their class id. */
export function unspacedCues(read: (word: string) => string): Array<readonly [string, number]> {
  const ids = new Map(CUE_NAMES.map((name, i) => [name, i + 1]));
  const out: Array<readonly [string, number]> = [];
  for (const [name, words] of UNSPACED_LEXICON)
    for (const w of words.split(' ')) out.push([read(w), ids.get(name) ?? 0]);
  return out;
}
