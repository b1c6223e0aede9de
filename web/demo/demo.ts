/// <reference path="../loader/embed-plugin.d.ts" />
import type { EmbedPluginHandle } from '../loader/embed-plugin';

// The demo platform's own script: what an integrator writes around EmbedPlugin.init.
const config = JSON.parse(document.getElementById('demo-config')!.textContent!) as {
  platformId: string;
  domain: string;
  mode: 'page' | 'drawer';
};
const LOG_KEY = 'demo-event-log';
const logList = document.getElementById('event-log')!;

// Kept for the tab's session, so the whole sequence shows across the return flow's page loads.
function readLog(): string[] {
  try {
    return JSON.parse(sessionStorage.getItem(LOG_KEY) ?? '[]') as string[];
  } catch {
    return [];
  }
}

function showLog(): void {
  logList.replaceChildren(
    ...readLog().map((line) => {
      const item = document.createElement('li');
      item.textContent = line;
      return item;
    }),
  );
}

function log(line: string): void {
  const lines = [...readLog(), `${new Date().toLocaleTimeString()} ${line}`].slice(-50);
  try {
    sessionStorage.setItem(LOG_KEY, JSON.stringify(lines));
  } catch {
    // Storage can be unavailable (private mode); the log is a convenience.
  }
  showLog();
}

document.getElementById('clear-log')!.addEventListener('click', () => {
  sessionStorage.removeItem(LOG_KEY);
  showLog();
});
showLog();

const handle: EmbedPluginHandle = EmbedPlugin.init({
  container: '#plugin',
  platformId: config.platformId,
  domain: config.domain,
  mode: config.mode,
  onEvent: (event) => log(JSON.stringify(event)),
  onClose: () => log('onClose'),
});
document.getElementById('open-drawer')?.addEventListener('click', () => handle.open());
