// What the browser proof page runs, in the admin's own browser: the service worker registers and
// controls the page, IndexedDB keeps a value across a close and reopen (and what
// navigator.storage.persisted() says), and a real login round trip with the run's temporary
// account through /__auth/login and /__auth/bootstrap. Then it posts the report with the run
// token only (no cookie), as the route requires.
export const PROOF_SCRIPT = `
(async () => {
  const data = JSON.parse(document.getElementById('proof-data').textContent);
  const show = (name, result) => {
    const row = document.querySelector('[data-check="' + name + '"]');
    if (!row) return;
    const state = row.querySelector('.state');
    state.textContent = result === null ? 'running…' : result.ok ? '✓ pass' : '✗ fail';
    state.className = 'state ' + (result === null ? 'muted' : result.ok ? 'status-ok' : 'status-bad');
    row.querySelector('.detail').textContent = result === null ? '' : result.detail;
  };
  const message = (text) => { document.getElementById('proof-status').textContent = text; };
  const failure = (error) => (error && error.message ? error.message : String(error));
  const withTimeout = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(what + ' took longer than ' + ms / 1000 + ' s')), ms))]);

  async function serviceWorker() {
    if (!('serviceWorker' in navigator)) {
      return { ok: false, registered: false, controlled: false, scope: null, detail: window.isSecureContext ? 'This browser has no service workers.' : 'Service workers need a secure context: open the console at http://localhost:<port> or over https.' };
    }
    try {
      const changed = new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
      const registration = await withTimeout(navigator.serviceWorker.register('/sw.js', { scope: '/' }), 10000, 'Registering /sw.js');
      await withTimeout(navigator.serviceWorker.ready, 10000, 'Activating the service worker');
      if (!navigator.serviceWorker.controller) await withTimeout(changed, 10000, 'Taking control of this page');
      const controlled = navigator.serviceWorker.controller !== null;
      return { ok: controlled, registered: true, controlled, scope: registration.scope, detail: controlled ? 'Registered with scope ' + registration.scope + ' and controls this page.' : 'Registered with scope ' + registration.scope + ' but does not control this page.' };
    } catch (error) {
      return { ok: false, registered: false, controlled: false, scope: null, detail: 'Registration failed: ' + failure(error) + '.' };
    }
  }

  async function indexedDb() {
    const name = 'studyhall-browser-proof';
    const open = () => new Promise((resolve, reject) => {
      const request = indexedDB.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore('proof');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const run = (db, mode, action) => new Promise((resolve, reject) => {
      const transaction = db.transaction('proof', mode);
      const request = action(transaction.objectStore('proof'));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error);
    });
    try {
      const value = data.run_id + ':' + Date.now();
      let db = await withTimeout(open(), 10000, 'Opening IndexedDB');
      await run(db, 'readwrite', (store) => store.put(value, 'value'));
      db.close();
      db = await withTimeout(open(), 10000, 'Reopening IndexedDB');
      const read = await run(db, 'readonly', (store) => store.get('value'));
      await run(db, 'readwrite', (store) => store.delete('value'));
      db.close();
      const persisted = navigator.storage && navigator.storage.persisted ? await navigator.storage.persisted() : null;
      const kept = read === value;
      return { ok: kept, kept_value: kept, persisted, detail: (kept ? 'A value written, closed and reopened reads back.' : 'After reopening, the value was gone.') + ' navigator.storage.persisted() is ' + persisted + (persisted ? '.' : ': the browser may evict this storage when space runs low.') };
    } catch (error) {
      return { ok: false, kept_value: false, persisted: null, detail: 'IndexedDB failed: ' + failure(error) + '.' };
    }
  }

  async function login() {
    try {
      const json = { 'content-type': 'application/json', accept: 'application/json' };
      const accountResponse = await fetch(data.account_url, { method: 'POST', headers: json, body: JSON.stringify({ run_token: data.run_token }) });
      const account = await accountResponse.json();
      if (!accountResponse.ok) return { ok: false, status: accountResponse.status, user_matches: false, detail: 'The server could not create the temporary account: ' + (account.message || accountResponse.status) + '.' };
      const response = await fetch('/__auth/login', { method: 'POST', headers: json, body: JSON.stringify({ username: account.email, password: account.password }) });
      const body = await response.json().catch(() => ({}));
      if (!response.ok || !body.session) return { ok: false, status: response.status, user_matches: false, detail: 'POST /__auth/login answered ' + response.status + ': ' + (body.message || 'no session') + '.' };
      const bootstrap = await fetch('/__auth/bootstrap', { headers: { authorization: 'Bearer ' + body.session.access_token, accept: 'application/json' } });
      const bundle = await bootstrap.json().catch(() => ({}));
      const matches = body.user.id === account.user_id && bootstrap.ok;
      return { ok: matches, status: response.status, user_matches: matches, detail: matches ? 'Signed in as the temporary account through /__auth/login and read its bundle from /__auth/bootstrap (' + bootstrap.status + ').' : 'Signed in, but /__auth/bootstrap answered ' + bootstrap.status + ' ' + (bundle.message || '') + '.' };
    } catch (error) {
      return { ok: false, status: null, user_matches: false, detail: 'The login round trip failed: ' + failure(error) + '.' };
    }
  }

  message('Running…');
  const checks = {};
  for (const [name, run] of [['service_worker', serviceWorker], ['indexeddb', indexedDb], ['login', login]]) {
    show(name, null);
    checks[name] = await run();
    show(name, checks[name]);
  }
  try {
    const response = await fetch(data.result_url, {
      method: 'POST',
      credentials: 'omit',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ run_token: data.run_token, user_agent: navigator.userAgent, checks }),
    });
    const report = await response.json();
    if (!response.ok) { message('The server refused the report: ' + (report.message || response.status) + '.'); return; }
    for (const item of report.checks) show(item.name, item);
    message('Report recorded (run ' + report.run_id + '): ' + (report.ok ? 'everything passed.' : 'something failed; see the rows above.'));
    document.body.dataset.proof = report.ok ? 'passed' : 'failed';
  } catch (error) {
    message('Sending the report failed: ' + failure(error) + '.');
  }
})();
`;
