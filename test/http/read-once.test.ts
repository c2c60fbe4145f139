import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { readOnce } from "../../src/http/read-once.ts";

test("readOnce: reads in one transaction opened at enter(), closed after the reads and after a throw; inside an open one it just runs", () => {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (x INTEGER)");
  db.exec("INSERT INTO t VALUES (1)");
  const read = (enter: () => void) => {
    enter();
    const first = db.inTransaction;
    enter(); // a second read joins the same transaction
    return [first, db.query("SELECT x FROM t").get()];
  };
  expect(readOnce(db, true, read)).toEqual([true, { x: 1 }]);
  expect(db.inTransaction).toBe(false);
  // answered from memory: no transaction opened at all
  expect(readOnce(db, true, () => db.inTransaction)).toBe(false);
  expect(() => readOnce(db, true, (enter) => { enter(); throw new Error("401"); })).toThrow("401");
  expect(db.inTransaction).toBe(false);
  expect(readOnce(db, false, (enter) => { enter(); return db.inTransaction; })).toBe(false);
  db.exec("BEGIN");
  expect(readOnce(db, true, (enter) => { enter(); return db.inTransaction; })).toBe(true);
  expect(db.inTransaction).toBe(true); // the caller's transaction is left to the caller
  db.exec("COMMIT");
});
