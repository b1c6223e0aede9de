import { Type, type Static } from 'typebox';

export const RegisterClientBody = Type.Object(
  {
    clientId: Type.Optional(Type.String({ description: 'Generated (oc_…) when omitted' })),
    name: Type.String({ maxLength: 100, description: 'Shown to brand staff on the consent page' }),
    redirectUris: Type.Array(Type.String({ maxLength: 2000 }), {
      description: 'Exact-match redirect URIs; https, or http on loopback only',
    }),
    confidential: Type.Boolean({
      description: 'true: a secret is issued (shown once, stored hashed); false: public client using PKCE alone',
    }),
    companyId: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'Confidential clients only: the brand its client_credentials tokens act for',
      }),
    ),
  },
  { title: 'RegisterOAuthClientRequest', additionalProperties: false },
);
export type RegisterClientBody = Static<typeof RegisterClientBody>;

const ClientFields = {
  clientId: Type.String(),
  name: Type.String(),
  redirectUris: Type.Array(Type.String()),
  confidential: Type.Boolean(),
  companyId: Type.Union([Type.String(), Type.Null()]),
};

export const RegisteredClientResponse = Type.Object(
  { ...ClientFields, clientSecret: Type.Optional(Type.String({ description: 'Shown once; only its hash is stored' })) },
  { title: 'RegisteredOAuthClient' },
);

export const ClientList = Type.Object({ data: Type.Array(Type.Object({ ...ClientFields, createdAt: Type.String() })) });
