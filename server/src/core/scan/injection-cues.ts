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
    'ignore ignoring disregard forget override bypass circumvent abandon discard instead ignoriere ignoriert ignorieren vergiss vergessen vergesst oublie oubliez ignorez olvida olvide olvidar ignora ignorar dimentica dimenticare esqueça esqueca ignore negeer vergeet zaboravi ignoriraj забудь забудьте игнорируй игнорируйте unutma yoksay quên',
  ],
  // What came before.
  [
    'prior',
    'previous prior above earlier preceding before original initial vorherigen vorherige bisherigen obigen précédentes précédent anteriores anterior precedenti precedente vorige предыдущие выше önceki trước',
  ],
  // The agent's orders.
  [
    'directive',
    'instruction instructions rules guidelines directives prompt prompts commands orders programming constraints anweisungen anweisung aufträge regeln consignes instrucciones instrucción istruzioni instruções instrucoes instructies instrukcije инструкции указания talimatlar',
  ],
  // What an attacker wants out.
  [
    'secret',
    'password passwords passphrase passcode secret secrets credentials credential confidential passwort kennwort geheim geheimnis contraseña clave segreto senha segredo wachtwoord lozinka пароль секрет şifre parola',
  ],
  // Make it show something.
  [
    'reveal',
    'reveal print repeat show output display tell disclose leak spell recite dump expose zeige zeig verrate wiederhole révèle affiche répète muestra revela repite mostra rivela ripeti mostre revele покажи раскрой повтори göster söyle',
  ],
  // The model and its setup.
  ['agent', 'assistant ai chatbot gpt chatgpt llm dan jailbreak jailbroken sudo'],
  // Addressing the reader.
  [
    'you',
    'you your yours yourself du dich dir dein deine deinen euch tu toi vous votre vos tú usted tus vosotros voi tuo tua você vocês jij jouw ты вы твой ваш sen sana senin bạn',
  ],
  // The reader's answer.
  [
    'response',
    'response responses answer answers reply replies output antwort antworten réponse réponses respuesta respuestas risposta resposta antwoord odgovor ответ cevap',
  ],
  // Changing who the agent is or what mode it is in.
  [
    'mode',
    'mode roleplay pretend persona unrestricted uncensored unfiltered unlimited restrictions limitations filters modus modo режим',
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
    'important urgent immediately attention priority critical wichtig sofort urgente importante subito immédiatement срочно важно',
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
