import crypto from 'node:crypto';

/**
 * The people who sign in to a store's admin: Shopify accounts, each staff (or the owner) of one or
 * more stores, and the sign-in sessions the stand-in's accounts page opens for them. A session is
 * what a session token's `sid` names and what the admin's cookie carries.
 */
export const STAFF_PASSWORD = 'standin-staff-password';
/** The cookie that keeps a staff member signed in across the admin, the App Store and the sign-in page (all on shopify.com). */
export const STAFF_COOKIE = 'standin_staff_session';

export interface StaffAccount {
  /** The user id: a session token's `sub`, an online token's `associated_user.id`. */
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  password: string;
  locale: string;
  /** The stores this account is staff of, and whether it owns each. */
  stores: Map<string, { accountOwner: boolean }>;
}

export interface StaffSession {
  account: StaffAccount;
  /** The session id, a session token's `sid`. */
  id: string;
}

export interface NewStaff {
  email: string;
  firstName?: string;
  lastName?: string;
  password?: string;
  locale?: string;
  accountOwner?: boolean;
}

export class StaffDirectory {
  private readonly accounts = new Map<string, StaffAccount>();
  private readonly sessions = new Map<string, StaffSession>();

  constructor(private readonly nextId: () => number) {}

  /** Makes the account staff of the store, creating the account when its email is new (one account may work at several stores). */
  add(shopDomain: string, staff: NewStaff): StaffAccount {
    const email = staff.email.toLowerCase();
    let account = this.accounts.get(email);
    if (!account) {
      const [name = 'staff'] = email.split('@');
      account = {
        id: this.nextId(),
        email,
        firstName: staff.firstName ?? name.charAt(0).toUpperCase() + name.slice(1),
        lastName: staff.lastName ?? 'Staff',
        password: staff.password ?? STAFF_PASSWORD,
        locale: staff.locale ?? 'en',
        stores: new Map(),
      };
      this.accounts.set(email, account);
    }
    account.stores.set(shopDomain, { accountOwner: staff.accountOwner ?? false });
    return account;
  }

  account(email: string): StaffAccount | undefined {
    return this.accounts.get(email.toLowerCase());
  }

  byId(id: number): StaffAccount | undefined {
    return [...this.accounts.values()].find((account) => account.id === id);
  }

  /** The store's owner, the account a test means when it names none. */
  owner(shopDomain: string): StaffAccount {
    const owner = [...this.accounts.values()].find((account) => account.stores.get(shopDomain)?.accountOwner);
    if (!owner) throw new Error(`${shopDomain} has no owner in the stand-in`);
    return owner;
  }

  /** A new signed-in session for a right email and password (compared in constant time); null otherwise. */
  signIn(email: string, password: string): { cookieValue: string; session: StaffSession } | null {
    const account = this.accounts.get(email.trim().toLowerCase());
    const given = crypto.createHash('sha256').update(password).digest();
    const expected = crypto
      .createHash('sha256')
      .update(account?.password ?? '')
      .digest();
    if (!account || !crypto.timingSafeEqual(given, expected)) return null;
    const cookieValue = crypto.randomBytes(24).toString('base64url');
    const session = { account, id: crypto.randomBytes(16).toString('hex') };
    this.sessions.set(cookieValue, session);
    return { cookieValue, session };
  }

  /** The session a request's Cookie header carries, if any. */
  sessionOf(request: Request): StaffSession | null {
    const cookies = request.headers.get('cookie') ?? '';
    for (const pair of cookies.split(';')) {
      const [name, ...value] = pair.trim().split('=');
      if (name === STAFF_COOKIE) return this.sessions.get(value.join('=')) ?? null;
    }
    return null;
  }
}
