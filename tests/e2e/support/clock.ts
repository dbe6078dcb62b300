/** Runs `work` (seeding through the services) as if the clock read `time`. */
import { setClock } from "../../../app/domain/clock.ts";

export async function atTime<T>(time: number, work: () => Promise<T>): Promise<T> {
  const restore = setClock(() => time);
  try {
    return await work();
  } finally {
    restore();
  }
}
