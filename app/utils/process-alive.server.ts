/**
 * Whether a process of this machine still runs (the owner named in a data folder's connection file, a demo
 * chain's publisher). Signal 0 checks without signalling; EPERM means it runs under another account.
 */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
