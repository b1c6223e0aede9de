import { Field, formValue } from './ui.tsx';

/** The store a sign-up or a new claim names: its brand name, domain and categories. */
export function BrandFields() {
  return (
    <>
      <Field label="Brand name">
        <input name="businessName" required maxLength={100} />
      </Field>
      <Field label="Store domain" hint="For example mystore.com. Its owner confirms at the store's commerce platform.">
        <input name="domain" required maxLength={100} />
      </Field>
      <Field label="Categories" hint="Separated by commas">
        <input name="categories" maxLength={500} />
      </Field>
    </>
  );
}

export function brandFromForm(form: HTMLFormElement) {
  return {
    businessName: formValue(form, 'businessName'),
    domain: formValue(form, 'domain'),
    categories: formValue(form, 'categories')
      .split(',')
      .map((category) => category.trim())
      .filter(Boolean),
  };
}
