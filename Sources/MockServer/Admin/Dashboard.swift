import Foundation
import Scenarios

/// The dashboard at `/__admin/ui`: one self-contained page (no CDN, works offline) over
/// the admin API — live requests from the event stream, one request's details, the
/// current scenario with a switcher, and reset buttons.
enum Dashboard {
    static let route = Route("admin.ui", .get("/__admin/ui")) { _, _ in
        ResponsePlan(status: 200, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"], body: page)
    }

    static let page = Data(#"""
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><title>MockServer</title>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <style>
      :root { font: 14px -apple-system, system-ui, sans-serif; color: #1d1d1f; background: #f5f5f7; }
      body { margin: 0; } header { display: flex; gap: 16px; align-items: center; padding: 12px 20px; background: #1d1d1f; color: #fff; }
      header h1 { font-size: 16px; margin: 0 12px 0 0; } header .pill { padding: 2px 8px; border-radius: 10px; background: #444; font-size: 12px; }
      header .pill.live { background: #1f8f4e; } select, button { font: inherit; padding: 4px 10px; border-radius: 6px; border: 1px solid #bbb; background: #fff; }
      button { cursor: pointer; } main { display: grid; grid-template-columns: 3fr 2fr; gap: 16px; padding: 16px 20px; }
      section { background: #fff; border-radius: 10px; box-shadow: 0 1px 3px #0002; overflow: hidden; }
      section h2 { font-size: 13px; margin: 0; padding: 10px 14px; border-bottom: 1px solid #eee; color: #555; }
      table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; } td, th { padding: 6px 10px; text-align: left; border-bottom: 1px solid #f0f0f0; }
      th { font-size: 12px; color: #777; font-weight: 600; } tbody tr { cursor: pointer; } tbody tr:hover, tbody tr.selected { background: #eef4ff; }
      .s2 { color: #1f8f4e; } .s3 { color: #0a60c2; } .s4 { color: #b26a00; } .s5, .fault { color: #c0392b; font-weight: 600; }
      pre { margin: 0; padding: 12px 14px; white-space: pre-wrap; word-break: break-all; font: 12px ui-monospace, Menlo, monospace; max-height: 70vh; overflow: auto; }
      .wrap { max-height: 75vh; overflow: auto; } .muted { color: #888; }
    </style></head>
    <body>
    <header>
      <h1>MockServer</h1><span id="status" class="pill">connecting…</span>
      <label>Scenario <select id="scenario"></select></label>
      <button id="reset-scenario" title="Forget counters and state machines">Reset scenario</button>
      <button id="reset-state" title="Back to the fixtures">Reset state</button>
      <button id="clear-journal">Clear journal</button>
      <span id="total" class="muted"></span>
    </header>
    <main>
      <section><h2>Requests (live)</h2><div class="wrap"><table>
        <thead><tr><th>#</th><th>Method</th><th>Path</th><th>Status</th><th>Duration</th><th>Scenario step</th><th>Fault</th></tr></thead>
        <tbody id="requests"></tbody></table></div></section>
      <section><h2>Request details</h2><pre id="details" class="muted">Click a request.</pre></section>
    </main>
    <script>
    const rows = document.getElementById('requests'), details = document.getElementById('details');
    // With --admin-token, open the dashboard as /__admin/ui?token=TOKEN: every call passes it on.
    const token = new URLSearchParams(location.search).get('token');
    const withToken = path => token ? path + (path.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token) : path;
    const api = (path, options) => fetch(withToken('/__admin' + path), options).then(r => r.json());
    function cell(text, cls) { const td = document.createElement('td'); td.textContent = text ?? ''; if (cls) td.className = cls; return td; }
    function addRow(r) {
      if (r.path.startsWith('/__admin')) return;
      let tr = document.querySelector(`tr[data-id="${r.id}"]`);
      if (!tr) { tr = document.createElement('tr'); tr.dataset.id = r.id; rows.prepend(tr); tr.onclick = () => show(r.id, tr); }
      tr.replaceChildren(cell(r.id), cell(r.method), cell(r.uri ?? r.path), cell(r.status, 's' + String(r.status)[0]),
        cell(r.durationMs != null ? r.durationMs + ' ms' : '…'), cell(r.scenarioStep), cell(r.fault, r.fault ? 'fault' : ''));
      tr.dataset.status = r.status;
    }
    function complete(e) { const tr = document.querySelector(`tr[data-id="${e.id}"]`); if (tr) tr.children[4].textContent = e.durationMs + ' ms'; }
    async function show(id, tr) {
      document.querySelectorAll('tr.selected').forEach(t => t.classList.remove('selected')); tr.classList.add('selected');
      const entry = await api('/requests/' + id), lines = h => (h || []).map(([n, v]) => n + ': ' + v).join('\n');
      const { requestHeaders, responseHeaders, body, ...rest } = entry;
      details.classList.remove('muted');
      details.textContent = JSON.stringify(rest, null, 2) + '\n\nRequest headers\n' + lines(requestHeaders)
        + '\n\nRequest body\n' + (body ? (body.text ?? body.base64 ?? JSON.stringify(body)) : '(none)')
        + '\n\nResponse headers\n' + lines(responseHeaders);
    }
    async function loadScenarios() {
      const list = await api('/scenarios'), select = document.getElementById('scenario');
      select.replaceChildren(...list.scenarios.map(s => { const o = document.createElement('option'); o.value = s.name; o.textContent = s.name; o.title = s.description; return o; }));
      select.value = list.current;
    }
    async function loadRequests() {
      const list = await api('/requests?limit=200'); rows.replaceChildren(); list.requests.forEach(addRow);
      document.getElementById('total').textContent = list.total + ' requests';
    }
    document.getElementById('scenario').onchange = e => api('/scenario', { method: 'PUT', body: JSON.stringify({ name: e.target.value }) });
    document.getElementById('reset-scenario').onclick = () => api('/scenario/reset', { method: 'POST', body: '{}' });
    document.getElementById('reset-state').onclick = () => api('/state/reset', { method: 'POST' });
    document.getElementById('clear-journal').onclick = () => api('/requests', { method: 'DELETE' }).then(loadRequests);
    const events = new EventSource(withToken('/__admin/events')), status = document.getElementById('status');
    events.onopen = () => { status.textContent = 'live'; status.className = 'pill live'; };
    events.onerror = () => { status.textContent = 'reconnecting…'; status.className = 'pill'; };
    events.addEventListener('request', e => { addRow(JSON.parse(e.data)); document.getElementById('total').textContent = e.lastEventId + ' requests'; });
    events.addEventListener('complete', e => complete(JSON.parse(e.data)));
    events.addEventListener('state', () => loadScenarios());
    loadScenarios(); loadRequests();
    </script></body></html>
    """#.utf8)
}
