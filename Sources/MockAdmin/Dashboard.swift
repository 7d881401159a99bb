import Foundation
import MockCore

/// The dashboard at `/__admin/ui`: one self-contained page (no CDN, works offline) over
/// the admin API — a latency/status timeline of recent requests (an SVG plot), the routes
/// and the scenario's rules with their hit counts and state machines, live requests from
/// the event stream, one request's details, the scenario switcher and reset buttons.
enum Dashboard {
    static let route = Route("admin.ui", .get("/__admin/ui")) { _, _ in
        ResponsePlan(status: 200, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"], body: page)
    }

    static let page = Data(#"""
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><title>MockServer</title>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="icon" href="data:,"><!-- no /favicon.ico request in the journal -->
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
      .s2 { color: #1f8f4e; } .s3 { color: #0a60c2; } .s4 { color: #b26a00; } .s5, .fault, .violation { color: #c0392b; font-weight: 600; }
      pre { margin: 0; padding: 12px 14px; white-space: pre-wrap; word-break: break-all; font: 12px ui-monospace, Menlo, monospace; max-height: 70vh; overflow: auto; }
      .wrap { max-height: 75vh; overflow: auto; } .muted { color: #888; }
      .col { display: flex; flex-direction: column; gap: 16px; min-width: 0; }
      #timeline { display: block; width: 100%; height: 220px; } #timeline text { font-size: 10px; fill: #888; }
      #timeline .grid { stroke: #eee; } #timeline circle { stroke-width: 1.5; fill-opacity: .75; }
      #timeline .p2 { fill: #1f8f4e; stroke: #1f8f4e; } #timeline .p3 { fill: #0a60c2; stroke: #0a60c2; } #timeline .p4 { fill: #e09a1a; stroke: #b26a00; }
      #timeline .p5 { fill: #c0392b; stroke: #c0392b; } #timeline .pending { fill: #fff; stroke: #888; } #timeline .pfault { fill: #fff; stroke: #c0392b; stroke-width: 2.5; }
      .legend { padding: 4px 14px 8px; font-size: 12px; color: #777; } .legend b { display: inline-block; width: 9px; height: 9px; border-radius: 5px; margin: 0 4px 0 10px; }
      .hits { font-weight: 600; text-align: right; } tr.hot .hits { color: #0a60c2; } .machine { font: 12px ui-monospace, Menlo, monospace; padding: 6px 14px; }
      .sub { font-size: 12px; color: #777; padding: 8px 14px 2px; font-weight: 600; }
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
      <div class="col">
        <section><h2>Timeline: latency and status of recent requests</h2>
          <svg id="timeline" viewBox="0 0 800 220" preserveAspectRatio="none" role="img" aria-label="latency and status of recent requests"></svg>
          <div class="legend"><b style="background:#1f8f4e"></b>2xx<b style="background:#0a60c2"></b>3xx<b style="background:#e09a1a"></b>4xx<b style="background:#c0392b"></b>5xx<b style="border:2px solid #c0392b"></b>fault<b style="border:1px solid #888"></b>in flight · log scale</div></section>
        <section><h2>Requests (live)</h2><div class="wrap"><table>
          <thead><tr><th>#</th><th>Method</th><th>Path</th><th>Status</th><th>Duration</th><th>Scenario step</th><th>Fault</th><th>API document</th></tr></thead>
          <tbody id="requests"></tbody></table></div></section>
        <section><h2>Live sockets</h2><table>
          <thead><tr><th>#</th><th>Path</th><th>Sent</th><th>Received</th><th>Message</th><th></th></tr></thead>
          <tbody id="sockets"></tbody></table></section>
      </div>
      <div class="col">
        <section><h2>Scenario rules and routes</h2>
          <div class="sub" id="scenario-title"></div><div id="machines" class="machine muted"></div>
          <table><thead><tr><th>Rule</th><th>Request</th><th>State</th><th class="hits">Hits</th></tr></thead><tbody id="rules"></tbody></table>
          <div class="sub" id="apis">Routes</div>
          <table><thead><tr><th>Route</th><th>Request</th><th class="hits">Hits</th></tr></thead><tbody id="routes"></tbody></table>
          <div class="sub" id="other"></div></section>
        <section><h2>Request details</h2><pre id="details" class="muted">Click a request.</pre></section>
      </div>
    </main>
    <script>
    const rows = document.getElementById('requests'), details = document.getElementById('details');
    // With --admin-token, open the dashboard as /__admin/ui?token=TOKEN: every call passes it on.
    const token = new URLSearchParams(location.search).get('token');
    const withToken = path => token ? path + (path.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token) : path;
    const api = (path, options) => fetch(withToken('/__admin' + path), options).then(r => r.json());
    function cell(text, cls) { const td = document.createElement('td'); td.textContent = text ?? ''; if (cls) td.className = cls; return td; }
    // A request to another host (through the proxy, or to an API's real name) shows it.
    const target = r => (r.method !== 'CONNECT' && r.host && r.host !== location.host ? r.host : '') + (r.uri ?? r.path);
    function addRow(r) {
      if (r.path.startsWith('/__admin')) return;
      let tr = document.querySelector(`tr[data-id="${r.id}"]`);
      if (!tr) { tr = document.createElement('tr'); tr.dataset.id = r.id; rows.prepend(tr); tr.onclick = () => show(r.id, tr); }
      tr.replaceChildren(cell(r.id), cell(r.method), cell(target(r)), cell(r.status, 's' + String(r.status)[0]),
        cell(r.durationMs != null ? r.durationMs + ' ms' : '…'), cell(r.scenarioStep), cell(r.fault, r.fault ? 'fault' : ''),
        violationsCell(r.violations));
      tr.dataset.status = r.status;
      tr.classList.toggle('violates', !!(r.violations && r.violations.length));
    }
    // A request that breaks its API's OpenAPI document: how many ways, each path and reason on hover.
    function violationsCell(list) {
      if (!list || !list.length) return cell('');
      const td = cell('⚠ ' + list.length + (list.length == 1 ? ' violation' : ' violations'), 'violation');
      td.title = list.map(v => v.path + ': ' + v.reason).join('\n');
      return td;
    }
    function complete(e) {
      const tr = document.querySelector(`tr[data-id="${e.id}"]`); if (tr) tr.children[4].textContent = e.durationMs + ' ms';
      const p = points.get(e.id); if (p) { p.ms = e.durationMs; drawSoon(); }
    }
    // The timeline: the last 300 requests, time across, duration up (log scale), coloured by status.
    const points = new Map(), svgNS = 'http://www.w3.org/2000/svg', plot = document.getElementById('timeline');
    function track(r) {
      if (r.path.startsWith('/__admin')) return;
      points.set(r.id, { id: r.id, t: Date.parse(r.receivedAt), ms: r.durationMs ?? null, status: r.status, fault: r.fault,
                         label: `#${r.id} ${r.method} ${target(r)} → ${r.status}` + (r.fault ? ` (${r.fault})` : '') + (r.network ? ` over ${r.network}` : '') });
      while (points.size > 300) points.delete(points.keys().next().value);
      drawSoon();
    }
    let drawPending = false;
    function drawSoon() { if (!drawPending) { drawPending = true; requestAnimationFrame(() => { drawPending = false; draw(); }); } }
    function svg(tag, attrs, text) { const e = document.createElementNS(svgNS, tag); for (const k in attrs) e.setAttribute(k, attrs[k]); if (text != null) e.textContent = text; return e; }
    function draw() {
      const list = [...points.values()], left = 44, right = 790, top = 10, bottom = 200;
      const children = [];
      const maxMs = Math.max(10, ...list.map(p => p.ms ?? 0)), logMax = Math.log10(maxMs * 1.5), logMin = -1;
      const y = ms => bottom - (Math.log10(Math.max(ms, 0.1)) - logMin) / (logMax - logMin) * (bottom - top);
      for (const tick of [0.1, 1, 10, 100, 1000, 10000, 100000]) {
        if (tick > maxMs * 1.5) break;
        children.push(svg('line', { class: 'grid', x1: left, x2: right, y1: y(tick), y2: y(tick) }));
        children.push(svg('text', { x: left - 4, y: y(tick) + 3, 'text-anchor': 'end' }, tick >= 1000 ? tick / 1000 + ' s' : tick + ' ms'));
      }
      const t0 = Math.min(...list.map(p => p.t)), t1 = Math.max(...list.map(p => p.t));
      const x = t => t1 === t0 ? (left + right) / 2 : left + 6 + (t - t0) / (t1 - t0) * (right - left - 12);
      if (list.length) children.push(svg('text', { x: right, y: 216, 'text-anchor': 'end' }, `${list.length} requests over ${((t1 - t0) / 1000).toFixed(1)} s`));
      for (const p of list) {
        const cls = p.fault ? 'pfault' : p.ms == null ? 'pending' : 'p' + String(p.status)[0];
        const c = svg('circle', { cx: x(p.t), cy: p.ms == null ? top + 4 : y(p.ms), r: 4.5, class: cls, 'data-id': p.id, 'data-status': p.status });
        c.appendChild(svg('title', {}, p.label + (p.ms != null ? ` in ${p.ms} ms` : ' (in flight)')));
        children.push(c);
      }
      plot.replaceChildren(...children);
    }
    // Routes and rules with their hit counts, and the state machines.
    function row(cells, hot) { const tr = document.createElement('tr'); if (hot) tr.className = 'hot'; cells.forEach(([t, c]) => tr.appendChild(cell(t, c))); return tr; }
    async function loadOverview() {
      const o = await api('/overview');
      document.getElementById('scenario-title').textContent = `Scenario ${o.scenario.name}` + (o.network ? ` · network ${o.network.name}` : '');
      const machines = Object.entries(o.scenario.machines);
      document.getElementById('machines').textContent = machines.length ? machines.map(([m, s]) => `${m}: ${s}`).join('   ') : 'no state machines';
      document.getElementById('rules').replaceChildren(...(o.scenario.rules.length ? o.scenario.rules.map(r =>
        row([[r.name], [r.request], [r.state ? `${r.state.machine}: ${r.state.is ?? 'any'} → ${r.state.becomes ?? 'same'}` : ''], [r.hits, 'hits']], r.hits > 0))
        : [row([['no rules: the APIs answer'], [''], [''], ['']])]));
      document.getElementById('apis').textContent = 'Routes of ' + (o.apis.length ? o.apis.map(a => `${a.name} (${a.variant})` + (a.hosts.length ? ` for ${a.hosts.join(', ')}` : '')).join(', ') : 'no API');
      document.getElementById('routes').replaceChildren(...o.routes.map(r => row([[r.name], [r.request], [r.hits, 'hits']], r.hits > 0)));
      const other = Object.entries(o.other).filter(([k]) => !o.routes.some(r => r.name === k));
      document.getElementById('other').textContent = other.length ? 'Also answered: ' + other.map(([k, v]) => `${k} ${v}`).join(', ') : '';
    }
    // At most four reloads a second however fast requests come (a debounce would starve).
    let overviewTimer = null;
    function overviewSoon() { if (!overviewTimer) overviewTimer = setTimeout(() => { overviewTimer = null; loadOverview(); }, 250); }
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
      const list = await api('/requests?limit=300'); rows.replaceChildren(); points.clear(); list.requests.forEach(r => { addRow(r); track(r); }); draw();
      document.getElementById('total').textContent = list.total + ' requests';
    }
    // Open WebSockets: send a text message into one, or close it (1000), by hand.
    async function loadSockets() {
      const list = await api('/sockets'), body = document.getElementById('sockets');
      if (!list.sockets.length) { body.replaceChildren(row([['no WebSocket is open', 'muted'], [''], [''], [''], [''], ['']])); return; }
      const typing = document.activeElement && document.activeElement.dataset.socket;
      if (typing) return;   // a refresh would wipe what is being typed
      body.replaceChildren(...list.sockets.map(s => {
        const tr = row([[s.id], [s.uri], [s.stream ? s.stream.sent : ''], [s.stream ? s.stream.received : '']]);
        const input = document.createElement('input'); input.dataset.socket = s.id; input.placeholder = 'text to send';
        const send = document.createElement('button'); send.textContent = 'Send';
        send.onclick = () => api(`/sockets/${s.id}/send`, { method: 'POST', body: JSON.stringify({ text: input.value }) }).then(() => { input.value = ''; input.blur(); loadSockets(); });
        const close = document.createElement('button'); close.textContent = 'Close';
        close.onclick = () => api(`/sockets/${s.id}/close`, { method: 'POST', body: JSON.stringify({ code: 1000, reason: 'closed from the dashboard' }) }).then(loadSockets);
        const field = document.createElement('td'); field.append(input, send);
        const actions = document.createElement('td'); actions.append(close);
        tr.append(field, actions);
        return tr;
      }));
    }
    let socketsTimer = null;
    function socketsSoon() { if (!socketsTimer) socketsTimer = setTimeout(() => { socketsTimer = null; loadSockets(); }, 250); }
    setInterval(loadSockets, 2000);
    document.getElementById('scenario').onchange = e => api('/scenario', { method: 'PUT', body: JSON.stringify({ name: e.target.value }) });
    document.getElementById('reset-scenario').onclick = () => api('/scenario/reset', { method: 'POST', body: '{}' });
    document.getElementById('reset-state').onclick = () => api('/state/reset', { method: 'POST' });
    document.getElementById('clear-journal').onclick = () => api('/requests', { method: 'DELETE' }).then(() => { loadRequests(); loadOverview(); });
    const events = new EventSource(withToken('/__admin/events')), status = document.getElementById('status');
    events.onopen = () => { status.textContent = 'live'; status.className = 'pill live'; };
    events.onerror = () => { status.textContent = 'reconnecting…'; status.className = 'pill'; };
    events.addEventListener('request', e => { const r = JSON.parse(e.data); addRow(r); track(r); overviewSoon(); if (r.status === 101) socketsSoon(); document.getElementById('total').textContent = e.lastEventId + ' requests'; });
    events.addEventListener('complete', e => { complete(JSON.parse(e.data)); socketsSoon(); });
    events.addEventListener('state', () => { loadScenarios(); overviewSoon(); });
    loadScenarios(); loadRequests(); loadOverview(); loadSockets();
    </script></body></html>
    """#.utf8)
}
