/// <reference lib="webworker" />
/** The browser's log witness, off the main thread: one check per message (app/lib/log-check.ts). */
import { checkLatestCheckpoint, type CheckRequest } from "./log-check.ts";

self.onmessage = async (event: MessageEvent<CheckRequest>) => {
  self.postMessage(await checkLatestCheckpoint(event.data));
};
