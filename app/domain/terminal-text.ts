/**
 * Text from outside (a webhook receiver's answer, Discord's, an SMTP server's) is kept and shown without the
 * characters a terminal acts on (issue 32, item 3): an answer holding `ESC ] 52 ; c ; …` would otherwise fill
 * the operator's clipboard when `spooks-admin` prints it, `ESC ] 0 ; …` retitle the window, `ESC [ 2 J` clear it.
 * Escape sequences go whole (CSI, OSC, DCS/SOS/PM/APC, in their 7-bit and 8-bit forms), then every remaining
 * C0 and C1 control character and DEL; line breaks and tabs become a space.
 */

/** ESC [ … final, or the 8-bit CSI (U+009B). */
const CSI = String.raw`(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]`;
/** OSC, DCS, SOS, PM, APC: up to BEL or ST (ESC \ or U+009C), or to the end when unterminated. */
const STRING = String.raw`(?:\u001b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?`;
/** Any other escape: ESC and the one character after it. */
const OTHER_ESCAPE = String.raw`\u001b[\u0020-\u007e]?`;

const SEQUENCES = new RegExp(`${CSI}|${STRING}|${OTHER_ESCAPE}`, "g");
const LINE_BREAKS = /\r\n|[\t\n\r\v\f]/g;
const CONTROL = String.raw`[\u0000-\u001f\u007f-\u009f]`;
const CONTROLS = new RegExp(CONTROL, "g");

/** Whether `text` holds a C0 or C1 control character or DEL (an escape sequence starts with one). */
export function hasControlCharacters(text: string): boolean {
  return new RegExp(CONTROL).test(text);
}

/** `text` as it may be stored and printed: no escape sequence, no control character. */
export function withoutControlCharacters(text: string): string {
  return text.replace(SEQUENCES, "").replace(LINE_BREAKS, " ").replace(CONTROLS, "");
}

/** The same for text of several lines (an error listing bad rows): each line cleaned, the line breaks kept. */
export function linesWithoutControlCharacters(text: string): string {
  return text.split(/\r?\n/).map(withoutControlCharacters).join("\n");
}
