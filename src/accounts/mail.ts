import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import * as dal from './dal.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/** The outbound mail port: where messages to brand staff (password resets) go. */
export interface Mailer {
  readonly kind: 'smtp' | 'dev-mailbox';
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** Delivers through the SMTP server of SMTP_URL (credentials in the URL, TLS per smtps:// or STARTTLS). */
class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    // nodemailer logs nothing unless asked: a transcript would carry the message, and so the reset token.
    this.transport = nodemailer.createTransport(smtpUrl);
  }

  async send(mail: OutgoingMail): Promise<void> {
    await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
  }

  close(): void {
    this.transport.close();
  }
}

/**
 * Test and dev hosts without SMTP: messages are kept in the database and shown on the
 * development mailbox page, so a tester can follow a reset without a mail server.
 */
class DevMailbox implements Mailer {
  readonly kind = 'dev-mailbox';

  constructor(private readonly db: Db) {}

  async send(mail: OutgoingMail): Promise<void> {
    await dal.insertOutboxMail(this.db, { recipient: mail.to, subject: mail.subject, body: mail.text }, new Date());
  }

  close(): void {}
}

/** SMTP when configured; otherwise the development mailbox, except in prod, where nothing is sent. */
export function mailerFor(config: Pick<Config, 'mail' | 'serviceEnv'>, db: Db): Mailer | undefined {
  if (config.mail.smtpUrl) return new SmtpMailer(config.mail.smtpUrl, config.mail.from);
  return config.serviceEnv === 'prod' ? undefined : new DevMailbox(db);
}

/** The development mailbox's page: the latest mail this host kept instead of sending, newest first. */
export async function devMailbox(db: Db) {
  return dal.listOutboxMail(db, 50);
}
