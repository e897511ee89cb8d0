// CPU time of processes, from /proc (Linux): what one request costs the machine, which does not depend on what else
// runs on it as much as requests per second do. Elsewhere (no /proc) every figure is undefined.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

const TICKS_PER_SECOND = existsSync('/proc')
  ? Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  : 100;

/** [ppid, utime + stime, cutime + cstime] in ticks, or undefined when the process is gone. */
function statOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const number = (index) => Number(fields[index - 3]);
    return [number(4), number(14) + number(15), number(16) + number(17)];
  } catch {
    return undefined;
  }
}

/**
 * Seconds of CPU used so far by `pids` (all their threads), with their children: the live ones, and the ones that
 * ended and were waited for (a PostgreSQL backend that closed is counted in its postmaster's children times).
 */
export function cpuSeconds(pids) {
  if (!existsSync('/proc')) return undefined;
  const wanted = new Set(pids.filter((pid) => pid !== undefined));
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = statOf(pid);
    if (!stat) continue;
    if (wanted.has(pid)) ticks += stat[1] + stat[2];
    else if (wanted.has(stat[0])) ticks += stat[1];
  }
  return ticks / TICKS_PER_SECOND;
}

/** The inode of the socket listening on TCP `port` (IPv4 or IPv6, any address), from /proc/net. */
function listeningInode(port) {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is ADDRESS:PORT; state 0A is LISTEN; the inode is the 10th field.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A') return fields[9];
    }
  }
  return undefined;
}

/**
 * The process that listens on TCP `port` on this machine (the server scripts/start.mjs started, whose pid the
 * bench does not hold), or undefined (no /proc, or nobody listens).
 */
export function pidListeningOn(port) {
  if (!existsSync('/proc')) return undefined;
  const inode = listeningInode(port);
  if (inode === undefined) return undefined;
  const socket = `socket:[${inode}]`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let descriptors;
    try {
      descriptors = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of descriptors) {
      try {
        if (readlinkSync(`/proc/${entry}/fd/${fd}`) === socket) return Number(entry);
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}
