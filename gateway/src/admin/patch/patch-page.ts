// The patch manager: the served patches with copy and download, and the form that runs one (or
// pasted SQL) on the project through the Management API; and the page showing the API's answer.
import { html, type SafeHtml } from '../html.ts';
import { formatBytes, plural } from '../layout.ts';
import type { ManagementTarget } from '../admin-settings.ts';
import type { ServedBundle } from './served-bundles.ts';

export const COPY_SCRIPT = `
document.querySelectorAll('button[data-copy]').forEach((button) => {
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    try {
      await navigator.clipboard.writeText(source.value);
    } catch {
      source.focus();
      source.select();
      document.execCommand('copy');
    }
    const label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = label; }, 2000);
  });
});
`;

export interface PatchView {
  bundles: ServedBundle[];
  management: ManagementTarget;
  chosen: string | undefined;
}

function bundleSection(bundle: ServedBundle): SafeHtml {
  const id = bundle.file.replace(/\.sql$/, '');
  return html`<section id="${bundle.file}" aria-labelledby="${id}-heading">
<h2 id="${id}-heading">${bundle.file}</h2>
<p>${bundle.purpose}</p>
<p class="muted">Version ${bundle.version} · ${plural(bundle.migrations.length, 'migration')} · ${formatBytes(bundle.bytes)} · sha256 <code>${bundle.sha256.slice(0, 16)}</code></p>
<div class="actions">
  <a class="button" href="/__admin/patch/${bundle.file}" download>Download ${bundle.file}</a>
  <button type="button" data-copy="${id}-sql">Copy SQL</button>
</div>
<details><summary>Show the SQL</summary>
<label class="muted">${bundle.file}<textarea id="${id}-sql" rows="16" readonly spellcheck="false">${bundle.sql}</textarea></label>
</details>
</section>`;
}

export function patchBody(view: PatchView): SafeHtml {
  const applicable = view.bundles.filter((bundle) => bundle.applicable);
  const chosen = applicable.find((bundle) => bundle.file === view.chosen) ?? applicable[0];
  const ref = view.management.projectRef;
  return html`<h1>Patch</h1>
<p>Patches run on the project through the Supabase Management API at <code>${view.management.url}</code>${ref ? html`, project <code>${ref}</code>` : ''}.
${view.management.localToken ? 'The form below holds the management token of the localbase this server runs; it goes to that API with the request and is never logged.' : 'Your personal access token goes to that API for one request; this server never stores, logs or shows it.'}
The fresh-install schema is a separate download: <a href="/__admin/schema">app-complete.sql</a>.</p>
${
  view.chosen === 'app-complete.sql'
    ? html`<p class="banner banner-bad">The object verify found missing comes from <strong>app-complete.sql</strong>, the fresh-install schema. It is not applied from here: on an empty project, <a href="/__admin/schema">download it</a> and run it in the SQL editor; on a live project, apply the migration verify names, pasted below.</p>`
    : ''
}
${applicable.map(bundleSection)}
<section id="apply" aria-labelledby="apply-heading">
<h2 id="apply-heading">Apply</h2>
<form class="stack" method="post" action="/__admin/apply-sql">
  <fieldset><legend>What to run</legend>
    <label class="check"><input type="radio" name="source" value="bundle" checked> A served patch</label>
    <label>Patch <select name="bundle">${applicable.map(
      (bundle) =>
        html`<option value="${bundle.file.replace(/\.sql$/, '')}"${bundle === chosen ? html` selected` : ''}>${bundle.file} (${bundle.version})</option>`,
    )}</select></label>
    <label class="check"><input type="radio" name="source" value="sql"> SQL I paste</label>
    <label>SQL <span class="hint">Only used with “SQL I paste”.</span><textarea name="sql" rows="8" spellcheck="false"></textarea></label>
  </fieldset>
  ${
    view.management.localToken
      ? html`<label>Management token <span class="hint">Filled in: the token of the localbase this server runs (kept in its DATA_DIR). Sent with this request only.</span>
    <input type="password" name="access_token" autocomplete="off" required value="${view.management.localToken}"></label>`
      : html`<label>Personal access token <span class="hint">From supabase.com/dashboard/account/tokens. Sent once, never kept.</span>
    <input type="password" name="access_token" autocomplete="off" required></label>`
  }
  <label>Project ref <span class="hint">${ref ? 'The project this server fronts.' : 'Set BACKEND_PROJECT_REF to fill this in.'}</span>
    <input type="text" name="project_ref" value="${ref ?? ''}" pattern="[a-z0-9][a-z0-9\\-]{0,62}" required spellcheck="false"></label>
  <label class="check"><input type="checkbox" name="confirm" value="true" required>
    <span>I understand that this runs the SQL on the project as its database owner. It can change or drop schema and data, and there is no undo.</span></label>
  <div class="actions"><button class="danger" type="submit">Run the SQL on project ${ref ?? 'named above'}</button></div>
</form>
</section>`;
}

export interface ApplyResultView {
  what: string;
  projectRef: string;
  url: string;
  status: number;
  ok: boolean;
  result: unknown;
}

/** What a status from the Management API means for the admin, in one sentence. */
export function statusHint(status: number, projectRef: string): string {
  if (status >= 200 && status < 300) return 'Run verify to see the project as it is now.';
  if (status === 401) return 'The Management API did not accept the personal access token: check it and try again.';
  if (status === 403) return `This token may not run SQL on project ${projectRef}.`;
  if (status === 404) return `The Management API knows no project ${projectRef} for this token: check the project ref.`;
  if (status === 400) return 'The SQL failed, and the whole batch was rolled back: read the message below.';
  return 'The Management API failed; try again later.';
}

export function applyResultBody(view: ApplyResultView & { retry: string }): SafeHtml {
  return html`<h1>Apply: ${view.ok ? 'done' : 'refused'}</h1>
<p class="banner ${view.ok ? 'banner-ok' : 'banner-bad'}" role="status">${view.what} on project <code>${view.projectRef}</code>: the Management API answered <strong>${view.status}</strong>${view.ok ? '.' : ', so nothing was applied.'} ${statusHint(view.status, view.projectRef)}</p>
<h2>Its answer, as it came</h2>
<pre>${typeof view.result === 'string' ? view.result : JSON.stringify(view.result, null, 2)}</pre>
<div class="actions">${view.ok ? html`<a class="button" href="/__admin/verify">Run verify</a> <a class="button" href="/__admin/patch">Back to the patches</a>` : html`<a class="button" href="${view.retry}">Try again</a> <a class="button" href="/__admin/verify">Run verify</a>`}</div>`;
}
