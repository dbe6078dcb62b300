/**
 * DATA_DIR holds the embedded database's files, its connection file (the socket's password), demo keys,
 * uploads and cached content: nothing another local account may read or change. It is created 0700, and
 * at each start every folder under it is made 0700 and every file 0600. PGlite writes its files 0666
 * whatever the umask, so they are tightened again once it has opened them; files it adds later sit in
 * 0700 folders (out of other accounts' reach) until the next start tightens them.
 */
import fs from "node:fs";
import path from "node:path";

const OWNER_ONLY_DIR = 0o700;
const OWNER_ONLY_FILE = 0o600;

export type Tightened = {
  /** Folders and files other accounts could reach: open to them, and inside folders they could enter. */
  widened: number;
  /** Folders and files made owner-only (an open file inside an owner-only folder is tightened silently). */
  tightened: number;
  checked: number;
};

/** Group or other may enter the folder. */
const enterable = (mode: number) => (mode & 0o011) !== 0;

/** Makes `root` and everything under it owner-only; symbolic links are left alone (never followed). */
export function tightenDataDir(root: string): Tightened {
  fs.mkdirSync(root, { recursive: true, mode: OWNER_ONLY_DIR });
  const result: Tightened = { widened: 0, tightened: 0, checked: 0 };
  const visit = (entry: string, reachable: boolean) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(entry);
    } catch {
      return; // removed meanwhile
    }
    if (stat.isSymbolicLink()) return;
    const wanted = stat.isDirectory() ? OWNER_ONLY_DIR : OWNER_ONLY_FILE;
    result.checked++;
    if ((stat.mode & 0o077) !== 0) {
      if (reachable) result.widened++;
      result.tightened++;
      fs.chmodSync(entry, wanted);
    }
    if (stat.isDirectory()) {
      const inside = reachable && enterable(stat.mode);
      for (const name of fs.readdirSync(entry)) visit(path.join(entry, name), inside);
    }
  };
  visit(root, true);
  return result;
}

export type Warn = (line: { msg: string; [key: string]: unknown }) => void;

/**
 * At start: tightens DATA_DIR, with a warning when other accounts could reach any of it (not for files
 * PGlite wrote 0666 inside folders that were already owner-only, as it does while running).
 */
export function secureDataDir(root: string, warn: Warn): void {
  const { widened, checked } = tightenDataDir(root);
  if (widened > 0) {
    warn({
      msg: "DATA_DIR was readable by other accounts; made owner-only (folders 0700, files 0600)",
      dataDir: root,
      widened,
      checked,
    });
  }
}
