import { Type, type Static } from 'typebox';
import { OneLineText } from '../http/schemas.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../shared/passwords.js';

export const CreateUserBody = Type.Object(
  {
    email: Type.String({ maxLength: 254, description: 'Sign-in email; stored lowercased and unique across the service' }),
    password: Type.String({
      minLength: MIN_PASSWORD_LENGTH,
      maxLength: MAX_PASSWORD_LENGTH,
      description: 'Stored as an Argon2id hash only',
    }),
    displayName: Type.Optional(OneLineText({ maxLength: 100 })),
  },
  { title: 'CreateBrandUserRequest', additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const CompanyParams = Type.Object({ companyId: Type.String({ minLength: 1, maxLength: 200 }) });

export const CreatedUser = Type.Object({ userId: Type.String(), companyId: Type.String(), email: Type.String() }, { title: 'BrandUser' });

export const UserList = Type.Object({
  data: Type.Array(
    Type.Object({
      userId: Type.String(),
      email: Type.String(),
      displayName: Type.Union([Type.String(), Type.Null()]),
      createdAt: Type.String(),
      lastSignInAt: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});
