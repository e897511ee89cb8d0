/**
 * The writes a PostgreSQL transaction holds back (Sql.deferWrite) and how they travel: as data-modifying WITH
 * clauses of the transaction's next statement, or of one statement before its COMMIT. Each saves a round trip.
 */
import type { SqlValue } from './sql.js';

export interface Statement {
  text: string;
  params: readonly SqlValue[];
}

interface HeldWrite extends Statement {
  /** The table it writes (a deferred write names one); undefined: it travels alone. */
  table: string | undefined;
}

/** The table of a plain INSERT, UPDATE or DELETE (one that may become a WITH clause). */
const WRITE_TARGET = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_][a-z0-9_]*)\s/i;

/** Statements a held write may lead: a plain one, or one whose own WITH is not RECURSIVE. */
const MERGEABLE = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH(?!\s+RECURSIVE))\s/i;

function mentions(text: string, table: string): boolean {
  return new RegExp(`\\b${table}\\b`, 'i').test(text);
}

/**
 * `writes` as statements: each run of writes to distinct tables becomes one (the last one leads, the others are its
 * WITH clauses). Two writes of one table never share a statement: its clauses see one snapshot, and two changes of
 * one row in one statement are not supported.
 */
function grouped(writes: readonly HeldWrite[]): HeldWrite[][] {
  const groups: HeldWrite[][] = [];
  let current: HeldWrite[] = [];
  for (const write of writes) {
    const clash =
      write.table === undefined ||
      current.some((held) => held.table === undefined || held.table === write.table);
    if (clash && current.length > 0) {
      groups.push(current);
      current = [];
    }
    current.push(write);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** `leading` as WITH clauses of `main` (whose own WITH, if any, follows them). */
function withClauses(leading: readonly HeldWrite[], main: Statement): Statement {
  if (leading.length === 0) return main;
  const clauses = leading.map((write, index) => `portal_held_${index + 1} AS (${write.text})`).join(',\n');
  const params = [...leading.flatMap((write) => write.params), ...main.params];
  const own = /^\s*WITH\s/i.exec(main.text);
  const text = own ? `WITH ${clauses},\n${main.text.slice(own[0].length)}` : `WITH ${clauses}\n${main.text}`;
  return { text, params };
}

/** One transaction's held writes. */
export class DeferredWrites {
  private held: HeldWrite[] = [];

  add(text: string, params: readonly SqlValue[]): void {
    this.held.push({ text, params: [...params], table: WRITE_TARGET.exec(text)?.[1]?.toLowerCase() });
  }

  /**
   * What to send for `next`: the held writes ride in it as WITH clauses when they write distinct tables that `next`
   * does not name (it cannot read or write what they change: they share its snapshot); otherwise they go first, as
   * few statements as their tables allow. The held writes are handed over either way.
   */
  before(next: Statement): { first: Statement[]; next: Statement } {
    const writes = this.held;
    this.held = [];
    if (writes.length === 0) return { first: [], next };
    const groups = grouped(writes);
    const [only] = groups;
    if (
      groups.length === 1 &&
      only !== undefined &&
      MERGEABLE.test(next.text) &&
      only.every((write) => write.table !== undefined && !mentions(next.text, write.table))
    ) {
      return { first: [], next: withClauses(only, next) };
    }
    return { first: groups.map(asStatement), next };
  }

  /** The held writes as statements to send before COMMIT. */
  drain(): Statement[] {
    const writes = this.held;
    this.held = [];
    return grouped(writes).map(asStatement);
  }
}

function asStatement(group: readonly HeldWrite[]): Statement {
  const last = group[group.length - 1] as HeldWrite;
  return withClauses(group.slice(0, -1), last);
}
