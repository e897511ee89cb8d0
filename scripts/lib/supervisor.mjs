// The child processes of `pnpm start` and `pnpm dev`: each one's output prefixed with its label, all stopped
// together on Ctrl-C (or SIGTERM), and everything stopped when an essential one dies.
import { spawn } from 'node:child_process';

/**
 * @param {{ cwd: string, essential: string[] }} options labels whose exit stops everything (a remote's host
 *   stopping leaves the rest running)
 */
export function createSupervisor({ cwd, essential }) {
  const children = new Set();
  let stopping = false;

  function prefixLines(stream, out, label) {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) out.write(`[${label}] ${line}\n`);
    });
  }

  function run(label, command, args, options = {}) {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...options,
      env: { ...process.env, ...options.env },
    });
    children.add(child);
    prefixLines(child.stdout, process.stdout, label);
    prefixLines(child.stderr, process.stderr, label);
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (stopping) return;
      console.error(`[${label}] stopped (${signal ?? `exit code ${code}`})`);
      if (essential.includes(label)) stop(code ?? 1);
    });
    return child;
  }

  function stop(code = 0) {
    if (stopping) return;
    stopping = true;
    for (const child of children) child.kill('SIGTERM');
    const deadline = setTimeout(() => process.exit(code), 5000);
    deadline.unref();
    const poll = setInterval(() => {
      if (children.size === 0) {
        clearInterval(poll);
        process.exit(code);
      }
    }, 50);
  }

  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));

  return { run, stop, isStopping: () => stopping };
}
