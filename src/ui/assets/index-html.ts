/** The console's one page: a shell the ES module bundled from src/ui/web fills by the URL's hash. */
export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kafkalite console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/style.css">
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<header class="top">
  <a class="brand" href="#/">kafkalite</a>
  <nav aria-label="sections">
    <a href="#/">Topics</a>
    <a href="#/groups" id="nav-groups">Consumer groups</a>
    <a href="#/transactions" id="nav-txn">Transactions</a>
    <a href="#/broker" id="nav-broker">Broker</a>
    <a href="#/disk" id="nav-disk">Log on disk</a>
  </nav>
  <span id="mode" class="mode"></span>
</header>
<main id="main" tabindex="-1"><p>Loading…</p></main>
</body>
</html>
`;
