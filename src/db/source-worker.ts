/**
 * A worker thread whose code is a string (a Blob URL): the compiled binary has one entry point, so
 * the database's background threads (the WAL checkpointer, the search index's follower) carry
 * their code with them. Unreferenced: such a thread must not keep a process alive that is
 * otherwise done.
 */
export function sourceWorker(code: string): Worker {
  const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  (worker as unknown as { unref(): void }).unref();
  return worker;
}
