import type { FastifyReply } from 'fastify';
import { escapeHtml, htmlPage, SANDBOX_PAGE_CSP } from '../plugin/html.js';
import { SANDBOX_PLATFORM_NAME } from './sandbox.js';

/** The service's app as the sandbox commerce platform names it to merchants. */
export const APP_NAME = 'Partner Collab';

export function money(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

export interface SandboxPage {
  title: string;
  body: string;
  status?: number;
  /** What part of the platform the page belongs to, shown in the top bar. */
  area?: string;
}

/** Sends one of the sandbox platform's server-rendered pages: no script, never cached, never framed. */
export async function sendSandboxPage(reply: FastifyReply, stylesheet: string, page: SandboxPage): Promise<FastifyReply> {
  return reply
    .status(page.status ?? 200)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Content-Security-Policy', SANDBOX_PAGE_CSP)
    .header('Cache-Control', 'no-store')
    .send(
      htmlPage({
        title: `${page.title} · ${SANDBOX_PLATFORM_NAME}`,
        stylesheet,
        bodyClass: 'sandbox',
        body:
          `<header class="topbar"><a href="/sandbox">${escapeHtml(SANDBOX_PLATFORM_NAME)}</a><span>${escapeHtml(page.area ?? 'store admin (sandbox)')}</span></header>` +
          `<main class="sheet">${page.body}</main>`,
      }),
    );
}

export function noSuchStoreBody(raw: string): string {
  return `<h1>No such store</h1><p>“${escapeHtml(raw)}” is not a store domain. Store domains look like shop.example.</p>`;
}
