// The API reference's one correction to its renderer's markup (src/http/reference-page.tsx).
//
// Scalar 1.76 renders the header-name field of an API key scheme (shown once the brand API key is
// the preselected scheme) as a contenteditable `role="combobox"` for its variable suggestions, and
// writes `aria-expanded` only while the suggestions are open: a closed combobox without it fails
// axe's aria-required-attr (critical), and a screen reader cannot tell that suggestions exist.
// No configuration reaches that component, so a closed one is marked closed here; while open, the
// renderer sets `true` and its `aria-controls` itself, and removing them again brings this back.
const CLOSED = '[role="combobox"]:not([aria-expanded])';

function markClosed(root: ParentNode): void {
  for (const combobox of root.querySelectorAll(CLOSED)) combobox.setAttribute('aria-expanded', 'false');
}

new MutationObserver(() => markClosed(document)).observe(document.documentElement, {
  subtree: true,
  childList: true,
  attributeFilter: ['aria-expanded', 'role'],
});
markClosed(document);
