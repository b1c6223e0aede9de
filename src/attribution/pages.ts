/** Shown to a shopper whose link is unknown or damaged: a page for people, not an API error. */
export const LINK_NOT_FOUND_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Offer link not found</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f6f7f9; color: #1d2430; }
  main { max-width: 28rem; padding: 2rem; text-align: center; }
  h1 { font-size: 1.5rem; margin-bottom: .5rem; }
  p { line-height: 1.5; }
</style>
</head>
<body>
<main>
  <h1>This offer link is not available</h1>
  <p>The link may have been copied incompletely, or the offer is no longer running.
  Please go back to the page where you found it and try again.</p>
</main>
</body>
</html>
`;
