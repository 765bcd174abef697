// allsum dashboard: plain JavaScript, no build step, no library. Reads the server's JSON APIs with the bearer token
// from sessionStorage (never from a URL) and polls: EventSource cannot send an Authorization header.
'use strict';
(() => {
  const TOKEN_KEY = 'allsum.dashboard.token';
  const POLL_MS = 1500;
  const REQUEST_TIMEOUT_MS = 10000;
  const STALE_HEARTBEAT_MS = 5000;
  const $ = (id) => document.getElementById(id);

  let token = sessionStorage.getItem(TOKEN_KEY);
  let selectedGroup = decodeHash();
  let selectedJob = null;
  let pollTimer = null;
  let polling = false;
  let live = new Map(); // group name -> GroupStatus
  let jobsOfGroup = []; // jobs of selectedGroup, oldest first
  const rendered = {}; // section id -> last HTML, to re-render only what changed
  const announced = new Map(); // "g:name" / "j:id" -> last state announced

  // ---- HTTP

  async function api(path, options = {}) {
    const headers = { Accept: 'application/json', ...(options.headers || {}) };
    if (token) headers.Authorization = 'Bearer ' + token;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), REQUEST_TIMEOUT_MS);
    try {
      const res = await fetch(path, { ...options, headers, signal: abort.signal, cache: 'no-store', credentials: 'omit' });
      const text = await res.text();
      let body = null;
      if (text) {
        try { body = JSON.parse(text); } catch { body = { title: res.statusText, detail: text.slice(0, 300) }; }
      }
      return { status: res.status, ok: res.ok, body };
    } finally {
      clearTimeout(timer);
    }
  }

  const groupPath = (g) => '/rendezvous/' + encodeURIComponent(g);

  // ---- log-in

  async function start() {
    $('login-form').addEventListener('submit', onLogin);
    $('logout').addEventListener('click', logout);
    $('submit-form').addEventListener('submit', onSubmit);
    $('validate-form').addEventListener('submit', onValidate);
    $('submit-form').elements.op.addEventListener('change', syncOpFields);
    document.addEventListener('click', onClick);
    window.addEventListener('hashchange', () => { selectGroup(decodeHash(), false); });
    syncOpFields();
    const first = await safeGroups();
    if (first && first.status === 401) {
      if (token) $('login-error').textContent = 'The server refused the saved token; paste it again.';
      forget();
      showLogin();
    } else {
      showApp();
      if (first && first.ok) applyGroups(first.body);
      schedule(0);
    }
  }

  async function onLogin(event) {
    event.preventDefault();
    const input = $('token');
    const candidate = input.value.trim();
    if (!candidate) {
      $('login-error').textContent = 'Paste the token the server was started with (ALLSUM_TOKEN).';
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    token = candidate;
    const answer = await safeGroups();
    if (!answer || answer.status === 401) {
      token = null;
      $('login-error').textContent = answer ? 'The server refused this token.' : 'The server did not answer; try again.';
      input.setAttribute('aria-invalid', 'true');
      input.select();
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, candidate);
    input.value = '';
    input.removeAttribute('aria-invalid');
    $('login-error').textContent = '';
    showApp();
    if (answer.ok) applyGroups(answer.body);
    $('groups-h').setAttribute('tabindex', '-1');
    $('groups-h').focus();
    schedule(0);
  }

  function logout() {
    forget();
    clearTimeout(pollTimer);
    pollTimer = null;
    showLogin();
    say('Logged out.');
  }

  function forget() {
    token = null;
    sessionStorage.removeItem(TOKEN_KEY);
  }

  function showLogin() {
    $('app').hidden = true;
    $('logout').hidden = true;
    $('login').hidden = false;
    setConn('not logged in', 'idle');
    $('token').focus();
  }

  function showApp() {
    $('login').hidden = true;
    $('app').hidden = false;
    $('logout').hidden = !token;
  }

  // ---- polling

  function schedule(delay) {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, delay);
  }

  async function safeGroups() {
    try {
      return await api('/dashboard/api/groups');
    } catch (e) {
      setConn('server unreachable, retrying', 'bad');
      return null;
    }
  }

  async function poll() {
    if (polling) return;
    polling = true;
    try {
      const groups = await safeGroups();
      if (groups && groups.status === 401) {
        forget();
        $('login-error').textContent = 'The server no longer accepts the token (restarted with another one?).';
        showLogin();
        return;
      }
      if (groups && groups.ok) {
        applyGroups(groups.body);
        await refreshJobs();
        setConn('live, updated ' + new Date().toLocaleTimeString(), 'ok');
      } else if (groups) {
        setConn('server answered ' + groups.status + (groups.body && groups.body.detail ? ': ' + groups.body.detail : ''), 'bad');
      }
    } finally {
      polling = false;
      if (token !== null || $('login').hidden) schedule(POLL_MS);
    }
  }

  async function refreshJobs() {
    if (!selectedGroup) {
      jobsOfGroup = [];
      renderDetail();
      return;
    }
    let answer;
    try {
      answer = await api(groupPath(selectedGroup) + '/jobs');
    } catch (e) {
      return; // the next poll tries again; the connection line says so
    }
    if (answer.ok) {
      jobsOfGroup = answer.body || [];
      for (const job of jobsOfGroup) announceChange('j:' + job.jobId, job.state, 'Job ' + job.seq + ' ' + job.state + '.');
    } else if (answer.status === 404) {
      jobsOfGroup = [];
    }
    renderDetail();
  }

  function setConn(text, kind) {
    const el = $('conn');
    // Only the kind is announced (role=status); the time in the text changes every poll.
    if (el.dataset.kind !== kind) el.dataset.kind = kind;
    el.textContent = text;
  }

  // ---- groups

  function applyGroups(body) {
    live = new Map((body.groups || []).map((g) => [g.group, g]));
    for (const g of live.values()) {
      announceChange('g:' + g.group, g.state + ' ' + g.generation,
        'Group ' + g.group + ' generation ' + g.generation + ' is ' + g.state + '.');
    }
    if (!selectedGroup && live.size === 1) selectGroup(live.keys().next().value, false);
    renderGroups(body);
  }

  function renderGroups(body) {
    const groups = body.groups || [];
    let html = '';
    if (groups.length === 0) {
      html = '<p class="muted">No group yet. Workers appear here as they join (<code>POST /rendezvous</code>).</p>';
    }
    for (const g of groups) {
      const sel = g.group === selectedGroup;
      const members = (g.members || []).slice().sort((a, b) => a.rank - b.rank);
      html += `<article class="card group${sel ? ' selected' : ''}" data-testid="group" data-group="${esc(g.group)}">
        <h3><button type="button" class="link" data-action="group" data-value="${esc(g.group)}" data-key="g-${esc(g.group)}"
          aria-pressed="${sel}">${esc(g.group)}</button></h3>
        <p class="meta"><span class="badge state-${esc(g.state)}" data-testid="group-state">${esc(g.state)}</span>
          generation <b data-testid="generation">${g.generation}</b> &middot;
          ${(g.joinedRanks || []).length}/${g.worldSize} ranks &middot; ${esc(g.backend)}</p>
        ${(g.missingRanks || []).length ? `<p class="missing" data-testid="missing">missing ranks: ${esc(ranges(g.missingRanks))}</p>` : ''}
        ${g.failureReason ? `<p class="reason">${esc(g.failureReason)}</p>` : ''}
        ${members.length ? `<div class="scroll"><table class="members">
          <caption class="sr-only">Members of ${esc(g.group)}</caption>
          <thead><tr><th scope="col">rank</th><th scope="col">host</th><th scope="col" class="wide-only">device</th><th scope="col">heartbeat</th></tr></thead>
          <tbody>${members.map((m) => `<tr data-testid="member">
            <td class="num">${m.rank}</td><td>${esc(m.host || '-')}</td><td class="wide-only">${esc(m.device || '-')}</td>
            <td class="num${m.heartbeatAgeMillis > STALE_HEARTBEAT_MS ? ' warn' : ''}">${age(m.heartbeatAgeMillis)}</td></tr>`).join('')}
          </tbody></table></div>` : ''}
      </article>`;
    }
    replace('groups', html);
    const old = body.historyOnly || [];
    replace('history-groups', old.length ? `<h3 class="small">Earlier groups (job history only)</h3><ul class="plain">${old.map((name) =>
      `<li><button type="button" class="link${name === selectedGroup ? ' selected' : ''}" data-action="group" data-value="${esc(name)}"
         data-key="h-${esc(name)}" aria-pressed="${name === selectedGroup}">${esc(name)}</button></li>`).join('')}</ul>` : '');
  }

  function selectGroup(name, focus) {
    if (!name || name === selectedGroup) return;
    selectedGroup = name;
    selectedJob = null;
    jobsOfGroup = [];
    history.replaceState(null, '', '#group=' + encodeURIComponent(name));
    $('submit-error').replaceChildren();
    $('validate-error').replaceChildren();
    renderDetail();
    if (focus) {
      $('detail-h').setAttribute('tabindex', '-1');
      $('detail-h').focus();
    }
    schedule(0);
  }

  function decodeHash() {
    const m = /^#group=(.+)$/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : null;
  }

  // ---- a group's jobs

  function renderDetail() {
    const forms = [$('submit-form'), $('validate-form')];
    if (!selectedGroup) {
      $('detail-h').textContent = 'Select a group';
      $('detail-hint').hidden = false;
      for (const form of forms) form.hidden = true;
      return;
    }
    const g = live.get(selectedGroup);
    $('detail-h').textContent = 'Group ' + selectedGroup;
    $('detail-hint').hidden = !!g;
    $('detail-hint').textContent = g ? '' : 'This group is not on the server now; its job history is shown.';
    $('submit-h').textContent = 'Run a sweep on ' + selectedGroup;
    $('validate-h').textContent = 'Validate ' + selectedGroup;
    for (const form of forms) {
      form.hidden = !g;
      const submit = form.querySelector('button[type=submit]');
      submit.disabled = !g || g.state !== 'complete';
      submit.title = submit.disabled ? 'The group must be complete (every rank joined) to run a job' : '';
    }

    const jobs = jobsOfGroup.slice().reverse();
    if (!selectedJob || !jobs.some((j) => j.jobId === selectedJob)) {
      const done = jobs.find((j) => j.results && j.results.length);
      selectedJob = done ? done.jobId : jobs.length ? jobs[0].jobId : null;
    }
    replace('jobs', jobs.length ? `<h3>Jobs</h3><div class="scroll"><table class="jobs" data-testid="jobs">
      <caption class="sr-only">Jobs of ${esc(selectedGroup)}, newest first</caption>
      <thead><tr><th scope="col">#</th><th scope="col">state</th><th scope="col" class="sweep-col">sweep</th><th scope="col" class="wide-only">submitted</th>
        <th scope="col" class="wide-only">queued</th><th scope="col" class="wide-only">ran</th><th scope="col">peak busbw</th><th scope="col"><span class="sr-only">show</span></th></tr></thead>
      <tbody>${jobs.map((j) => `<tr class="${j.jobId === selectedJob ? 'selected' : ''}" data-testid="job-row" data-state="${esc(j.state)}">
        <td class="num">${j.seq}</td><td><span class="badge state-${esc(j.state)}">${esc(j.state)}</span></td>
        <td class="sweep-col">${esc(sweepLabel(j.spec))}</td><td class="wide-only">${when(j.submittedAt)}</td>
        <td class="num wide-only">${span(j.submittedAt, j.dispatchedAt)}</td><td class="num wide-only">${span(j.dispatchedAt, j.finishedAt)}</td>
        <td class="num">${peak(j)}</td>
        <td><button type="button" class="small" data-action="job" data-value="${esc(j.jobId)}" data-key="j-${esc(j.jobId)}"
          aria-pressed="${j.jobId === selectedJob}" aria-label="Show job ${j.seq}">Show</button></td></tr>`).join('')}
      </tbody></table></div>` : '<p class="muted">No job in this group yet.</p>');
    renderJob(jobs.find((j) => j.jobId === selectedJob));
  }

  function renderJob(job) {
    if (!job) {
      replace('job', '');
      replace('history', '');
      return;
    }
    const rows = job.results || [];
    const s = job.spec || {};
    const world = job.reportedRanks ? job.reportedRanks.length : 0;
    const running = job.state === 'running';
    let html = `<article class="card job" data-testid="job" data-state="${esc(job.state)}" aria-labelledby="job-h">
      <h3 id="job-h">Job ${job.seq} <span class="badge state-${esc(job.state)}">${esc(job.state)}</span></h3>
      <dl class="facts">
        <div class="wide"><dt>id</dt><dd><code>${esc(job.jobId)}</code></dd></div>
        <div class="wide"><dt>sweep</dt><dd>${esc(sweepLabel(s))}</dd></div>
        <div><dt>iterations</dt><dd>${s.iterations} (+${s.warmupIterations} warm-up)${s.verify ? ', verified' : ''}${s.inPlace ? ', in place' : ''}</dd></div>
        <div><dt>generation</dt><dd>${job.generation == null ? '-' : job.generation}</dd></div>
        <div><dt>submitted</dt><dd>${when(job.submittedAt)}</dd></div>
        <div><dt>dispatch</dt><dd>${job.dispatchLatencyMicros == null ? '-' : micros(job.dispatchLatencyMicros)}</dd></div>
        <div><dt>ran</dt><dd>${span(job.dispatchedAt, job.finishedAt)}</dd></div>
        <div><dt>reports</dt><dd>${world ? esc(ranges(job.reportedRanks)) : 'none yet'}</dd></div>
        <div><dt>#wrong</dt><dd data-testid="wrong" class="${totalWrong(rows) > 0 ? 'warn' : ''}">${rows.length ? totalWrong(rows) : '-'}</dd></div>
      </dl>
      ${job.failureReason ? `<p class="reason" data-testid="failure">${esc(job.failureReason)}</p>` : ''}`;
    if (s.validation) html += validationView(job);
    if (running) {
      // The server shows the sizes every rank has measured; the rest follow as the ranks report them.
      html += `<p class="muted" data-testid="progress" aria-live="polite">${rows.length
        ? `Running: ${rows.length} size${rows.length === 1 ? '' : 's'} done so far; the table grows as every rank measures the next.`
        : 'Running: waiting for every rank to measure the first size&hellip;'}</p>`;
    } else if (job.state === 'failed' && rows.length) {
      html += `<p class="muted" data-testid="progress">The ${rows.length} size${rows.length === 1 ? '' : 's'} every rank measured before the job failed.</p>`;
    }
    if (rows.length) {
      html += `<div class="result">
        <figure class="plot" data-testid="plot">${busbwPlot(rows, 'Bus bandwidth of job ' + job.seq + ' (' + sweepLabel(s) + ')')}
          <figcaption class="sr-only">One point per message size; the table beside it holds the same numbers.</figcaption></figure>
        <div class="scroll"><table class="results" data-testid="results">
          <caption>Results (slowest rank's time)${running ? ', so far' : ''}</caption>
          <thead><tr><th scope="col">size</th><th scope="col">time &micro;s</th>
            <th scope="col" class="wide-only">algbw GB/s</th><th scope="col">busbw GB/s</th><th scope="col">#wrong</th></tr></thead>
          <tbody>${rows.map((r) => `<tr><th scope="row" class="num" title="${r.count} elements">${bytes(r.bytes)}</th>
            <td class="num">${fmt(r.timeMicros, 1)}</td><td class="num wide-only">${fmt(r.algBandwidthGBps, 2)}</td>
            <td class="num">${fmt(r.busBandwidthGBps, 2)}</td><td class="num${r.wrongElements > 0 ? ' warn' : ''}">${r.wrongElements}</td></tr>`).join('')}
          </tbody></table></div>
      </div>${rankTimes(rows)}`;
    } else if (job.state === 'queued') {
      html += '<p class="muted">Queued: waiting to be handed to the ranks&hellip;</p>';
    }
    html += '</article>';
    replace('job', html);
    renderHistory(job);
  }

  // ---- a validation: verdict, figures alone, pair heatmap, suspects

  const PHASES = { alone: 'each rank alone', pairs: 'every pair', together: 'all together (the sweep)', done: 'done' };
  /** Heat classes by a cell's digit (the server's heat rows: tenths of the median pair): 9, 7-8, 5-6, 3-4, 0-2. */
  const HEAT = [[9, '&ge; 90 %'], [7, '70&ndash;90 %'], [5, '50&ndash;70 %'], [3, '30&ndash;50 %'], [0, '&lt; 30 %']];

  function validationView(job) {
    const v = job.validation || {};
    const n = v.worldSize || 0;
    const places = new Map((v.ranks || []).map((p) => [p.rank, p]));
    const solo = new Map((v.solo || []).map((f) => [f.rank, f.gbps]));
    const pairs = new Map((v.pairs || []).map((p) => [p.low + '-' + p.high, p]));
    const suspects = v.suspects || [];
    // A rank is marked for its own suspects and its host's; a link for its own.
    const rankWhy = new Map(), linkWhy = new Map();
    const blame = (map, key, why) => map.set(key, (map.has(key) ? map.get(key) + '; ' : '') + why);
    for (const x of suspects) {
      if (x.kind === 'link') blame(linkWhy, Math.min(x.rank, x.peerRank) + '-' + Math.max(x.rank, x.peerRank), x.reason);
      else if (x.kind === 'rank') blame(rankWhy, x.rank, x.reason);
      else if (x.kind === 'host') for (const p of places.values()) if (p.host === x.host) blame(rankWhy, p.rank, x.reason);
    }
    const soloMedian = v.soloMedianGBps;
    let html = `<section class="validation" data-testid="validation" aria-label="Validation">${verdictLine(job, v, n, pairs.size, suspects)}`;
    if (n) {
      html += `<div class="scroll"><table class="solo" data-testid="solo">
        <caption>Each rank alone${soloMedian == null ? '' : ` (median ${fmt(soloMedian, 2)} GB/s)`}</caption>
        <thead><tr><th scope="col">rank</th><th scope="col">host</th><th scope="col" class="wide-only">device</th>
          <th scope="col">GB/s</th><th scope="col" title="sizes of the sweep at which the others waited for this rank">last</th></tr></thead>
        <tbody>${Array.from({ length: n }, (_, r) => {
          const place = places.get(r) || {};
          const why = rankWhy.get(r);
          return `<tr data-testid="solo-row" data-rank="${r}"${why ? ' class="suspect"' : ''}>
            <th scope="row" class="num"${why ? ` title="${esc(why)}"` : ''}>${r}${why ? '<span class="mark" aria-hidden="true">!</span><span class="sr-only"> (suspect)</span>' : ''}</th>
            <td>${esc(place.host || '-')}</td><td class="wide-only">${esc(place.device || '-')}</td>
            <td class="num">${solo.has(r) ? fmt(solo.get(r), 2) : '-'}</td>
            <td class="num">${v.lastArrivals && v.lastArrivals[r] != null ? v.lastArrivals[r] : '-'}</td></tr>`;
        }).join('')}</tbody></table></div>`;
      html += heatmap(n, v.heat || [], pairs, v.pairMedianGBps, rankWhy, linkWhy, v.pairsSeconds);
    }
    if (suspects.length) {
      html += `<div class="scroll"><table class="suspects" data-testid="suspects"><caption>Suspects</caption>
        <thead><tr><th scope="col">kind</th><th scope="col">which</th><th scope="col">reason</th></tr></thead>
        <tbody>${suspects.map((x) => `<tr data-testid="suspect" data-kind="${esc(x.kind)}" data-rank="${x.rank}" data-peer="${x.peerRank}">
          <td>${esc(x.kind)}</td><td>${esc(suspectName(x))}</td><td class="why">${esc(x.reason)}</td></tr>`).join('')}
        </tbody></table></div>`;
    }
    return html + '</section>';
  }

  function verdictLine(job, v, n, measured, suspects) {
    const phase = PHASES[v.phase] || v.phase || 'waiting for the ranks';
    let text;
    if (v.verdict === 'healthy') {
      text = `Verdict: <b>healthy</b> (${n} ranks, ${measured} pairs)`;
    } else if (v.verdict === 'suspects') {
      text = `Verdict: <b>${suspects.length} suspect${suspects.length === 1 ? '' : 's'}</b>: ${esc(suspects.map(suspectName).join(', '))}`;
    } else if (v.verdict === 'failed') {
      text = `Verdict: <b>failed</b> in phase ${esc(v.phase || '-')}`;
    } else if (job.state === 'queued') {
      text = 'Queued: the validation starts when the ranks take it&hellip;';
    } else {
      const all = n * (n - 1) / 2;
      text = `Measuring: ${esc(phase)}${v.phase === 'pairs' ? ` (${measured} of ${all} pairs)` : ''}&hellip;`;
    }
    return `<p class="verdict verdict-${esc(v.verdict || 'running')}" data-testid="verdict" data-verdict="${esc(v.verdict || '')}"
      data-phase="${esc(v.phase || '')}" aria-live="polite">${text}</p>`;
  }

  function suspectName(x) {
    if (x.kind === 'link') return `link ${Math.min(x.rank, x.peerRank)}-${Math.max(x.rank, x.peerRank)}`;
    if (x.kind === 'host') return 'host ' + x.host;
    if (x.kind === 'group') return 'the group';
    return 'rank ' + x.rank + (x.host ? ' (' + x.host + ')' : '');
  }

  /** N x N, symmetric: the server's heat rows (as the CLI prints them); a cell's colour is its digit's class. */
  function heatmap(n, heat, pairs, pairMedian, rankWhy, linkWhy, pairsSeconds) {
    const head = (r, scope) => {
      const why = rankWhy.get(r);
      return `<th scope="${scope}" class="num${why ? ' suspect' : ''}"${why ? ` title="rank ${r}: ${esc(why)}"` : ''}>${r}${why
        ? '<span class="mark" aria-hidden="true">!</span><span class="sr-only"> (suspect)</span>' : ''}</th>`;
    };
    const cell = (a, b) => {
      if (a === b) return '<td class="diag" aria-label="same rank">&middot;</td>';
      const key = Math.min(a, b) + '-' + Math.max(a, b);
      const p = pairs.get(key);
      const digit = Number((heat[a] || '')[b]);
      if (!p || Number.isNaN(digit)) return `<td class="none" title="ranks ${key}: not measured yet">?</td>`;
      const level = HEAT.findIndex(([min]) => digit >= min);
      const why = linkWhy.get(key);
      const title = `ranks ${key}: ${fmt(p.gbps, 2)} GB/s each way, ${fmt(p.latencyMicros, 1)} µs latency, ${digit} tenths of the median`
        + (why ? ' (suspect link: ' + why + ')' : '');
      return `<td class="heat heat-${HEAT.length - 1 - level}${why ? ' suspect-link' : ''}" data-testid="pair" data-low="${p.low}"
        data-high="${p.high}" data-gbps="${p.gbps}" title="${esc(title)}">${digit}</td>`;
    };
    let rows = '';
    for (let a = 0; a < n; a++) rows += `<tr>${head(a, 'row')}${Array.from({ length: n }, (_, b) => cell(a, b)).join('')}</tr>`;
    const legend = HEAT.map(([, label], i) => `<span class="swatch"><span class="heat heat-${HEAT.length - 1 - i}" aria-hidden="true"></span>${label}</span>`).join('');
    return `<figure class="heat-figure" data-testid="heatmap-figure">
      <div class="scroll heat-box"><table class="heatmap" data-testid="heatmap">
        <caption>Pairs: GB/s each way against the median pair${pairMedian == null ? '' : ' (' + fmt(pairMedian, 2) + ' GB/s)'}${pairsSeconds == null ? '' : `, measured in ${fmt(pairsSeconds, 2)} s`}</caption>
        <thead><tr><th scope="col"><span class="sr-only">rank</span></th>${Array.from({ length: n }, (_, r) => head(r, 'col')).join('')}</tr></thead>
        <tbody>${rows}</tbody></table></div>
      <figcaption class="legend" data-testid="legend">${legend}
        <span>digit: tenths of the median &middot; <span class="mark">!</span> suspect rank &middot;
          <span class="outlined">outlined</span>: suspect link &middot; ?: not measured yet; each cell's figures in its tooltip</span></figcaption>
    </figure>`;
  }

  function rankTimes(rows) {
    const ranks = rows[0].rankTimesMicros ? rows[0].rankTimesMicros.length : 0;
    if (!ranks) return '';
    const head = Array.from({ length: ranks }, (_, r) => `<th scope="col">rank ${r}</th>`).join('');
    const body = rows.map((row) => {
      const times = row.rankTimesMicros || [];
      const slowest = Math.max(...times);
      return `<tr><th scope="row" class="num">${bytes(row.bytes)}</th>${times.map((t) =>
        `<td class="num${t === slowest && ranks > 1 ? ' slowest' : ''}">${fmt(t, 1)}</td>`).join('')}</tr>`;
    }).join('');
    return `<details class="ranks"><summary>Per-rank times (&micro;s; the slowest rank of each size marked)</summary>
      <div class="scroll"><table data-testid="rank-times"><caption class="sr-only">Each rank's average time per size</caption>
      <thead><tr><th scope="col">size</th>${head}</tr></thead><tbody>${body}</tbody></table></div></details>`;
  }

  // ---- history of the same sweep

  /** Every validation of the group with its verdict, newest first: the group's health over time. */
  function validationHistory() {
    const runs = jobsOfGroup.filter((j) => j.spec && j.spec.validation).slice().reverse();
    const rows = runs.map((j) => {
      const v = j.validation || {};
      const verdict = v.verdict || j.state;
      const named = (v.suspects || []).map(suspectName).join(', ');
      return `<tr data-testid="validation-run" data-verdict="${esc(verdict)}"><th scope="row" class="num">${j.seq}</th>
        <td>${when(j.submittedAt)}</td><td><span class="badge verdict-${esc(verdict)}">${esc(verdict)}</span></td>
        <td class="why">${esc(named || '-')}</td></tr>`;
    }).join('');
    return `<h3>Validations of this group</h3><div class="scroll"><table data-testid="validation-history">
      <caption>Each validation's verdict, newest first (<code>allsum validate --every</code> adds one per round)</caption>
      <thead><tr><th scope="col">job</th><th scope="col">submitted</th><th scope="col">verdict</th><th scope="col">suspects</th></tr></thead>
      <tbody>${rows}</tbody></table></div>`;
  }

  function sweepKey(s) {
    return [s.op, s.dtype, s.op && reduces(s.op) ? s.redop : '', s.minBytes, s.maxBytes, s.stepFactor, s.stepBytes, s.inPlace, (s.excludeRanks || []).join(',')].join('|');
  }

  function renderHistory(job) {
    if (job.spec && job.spec.validation) {
      replace('history', validationHistory());
      return;
    }
    const key = sweepKey(job.spec || {});
    const same = jobsOfGroup.filter((j) => j.state === 'succeeded' && j.results && j.results.length
      && !j.spec.validation && sweepKey(j.spec) === key);
    if (same.length < 2) {
      replace('history', `<h3>History of this sweep</h3><p class="muted">${same.length ? 'One run so far' : 'No finished run yet'}
        of ${esc(sweepLabel(job.spec || {}))} in this group; each new run adds a point.</p>`);
      return;
    }
    const points = same.map((j) => ({
      seq: j.seq, at: j.submittedAt,
      peak: Math.max(...j.results.map((r) => r.busBandwidthGBps)),
      largest: j.results[j.results.length - 1].busBandwidthGBps,
    }));
    let rows = '';
    points.forEach((p, i) => {
      const prev = i ? points[i - 1].peak : null;
      const change = prev ? (p.peak - prev) / prev * 100 : null;
      rows += `<tr><th scope="row" class="num">${p.seq}</th><td>${when(p.at)}</td><td class="num">${fmt(p.peak, 2)}</td>
        <td class="num wide-only">${fmt(p.largest, 2)}</td><td class="num${change !== null && change < -10 ? ' warn' : ''}">${change === null ? '-' : (change >= 0 ? '+' : '') + fmt(change, 1) + ' %'}</td></tr>`;
    });
    replace('history', `<h3>History of this sweep</h3><div class="result">
      <figure class="plot" data-testid="history-plot">${historyPlot(points, 'Peak bus bandwidth of ' + sweepLabel(job.spec) + ' per run')}</figure>
      <div class="scroll"><table data-testid="history"><caption>Runs of ${esc(sweepLabel(job.spec))}</caption>
        <thead><tr><th scope="col">job</th><th scope="col">submitted</th><th scope="col">peak GB/s</th><th scope="col" class="wide-only">largest size GB/s</th><th scope="col">vs previous</th></tr></thead>
        <tbody>${rows}</tbody></table></div></div>`);
  }

  // ---- submitting a sweep

  function syncOpFields() {
    const form = $('submit-form');
    const op = form.elements.op.value;
    form.elements.redop.disabled = !reduces(op);
    form.elements.root.disabled = !(op === 'broadcast' || op === 'reduce');
  }

  async function onSubmit(event) {
    event.preventDefault();
    const form = $('submit-form');
    const box = $('submit-error');
    const f = clearProblem(form, box);
    const spec = {
      op: f.op.value, dtype: f.dtype.value,
      minBytes: size(f.minBytes.value), maxBytes: size(f.maxBytes.value),
      stepFactor: number(f.stepFactor.value), iterations: number(f.iterations.value),
      warmupIterations: number(f.warmupIterations.value), timeoutSeconds: number(f.timeoutSeconds.value),
      verify: f.verify.checked, inPlace: f.inPlace.checked,
    };
    if (!f.redop.disabled) spec.redop = f.redop.value;
    if (!f.root.disabled) spec.root = number(f.root.value);
    await submitJob(form, box, spec);
  }

  /** The sweep of `allsum validate` with its defaults (-f 4 -n 10 -w 2 --timeout 600); the form sets the sizes. */
  const VALIDATION_SWEEP = { op: 'all_reduce', dtype: 'float32', redop: 'sum', root: 0, stepFactor: 4, iterations: 10,
    warmupIterations: 2, timeoutSeconds: 600, inPlace: false, verify: true };

  /** The JobSpec `allsum validate` sends, with a validation member (a field left empty: the server's default). */
  async function onValidate(event) {
    event.preventDefault();
    const form = $('validate-form');
    const box = $('validate-error');
    const f = clearProblem(form, box);
    const optional = (name, parse) => (f[name].value.trim() === '' ? undefined : parse(f[name].value));
    const spec = {
      ...VALIDATION_SWEEP, minBytes: size(f.minBytes.value), maxBytes: size(f.maxBytes.value),
      validation: {
        soloBytes: optional('validation.soloBytes', size), pairBytes: optional('validation.pairBytes', size),
        pairIterations: optional('validation.pairIterations', number),
        minDeviations: optional('validation.minDeviations', decimal),
        minShortfall: optional('validation.minShortfall', decimal),
        expectBusBandwidthGBps: optional('validation.expectBusBandwidthGBps', decimal),
      },
    };
    await submitJob(form, box, spec);
  }

  /** Empties the form's problem box and unmarks its fields; answers the form's fields. */
  function clearProblem(form, box) {
    box.replaceChildren();
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
    return form.elements;
  }

  /** POSTs a job from one of the forms: the new job is selected, a refusal is shown in the form's box. */
  async function submitJob(form, box, spec) {
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    let answer;
    try {
      answer = await api(groupPath(selectedGroup) + '/jobs', {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(spec),
      });
    } catch (e) {
      answer = { ok: false, status: 0, body: { title: 'No answer', detail: 'the server did not answer: ' + e.message } };
    } finally {
      button.disabled = false;
    }
    if (answer.ok) {
      selectedJob = answer.body.jobId;
      say('Job ' + answer.body.seq + ' submitted to ' + selectedGroup + '.');
      schedule(0);
      return;
    }
    if (answer.status === 401) {
      logout();
      return;
    }
    showProblem(box, answer, form);
  }

  /**
   * An RFC 9457 problem: its title, detail and each violation ({field, message}); the fields it names (violations,
   * or the job API's single "field" member) get aria-invalid and the first one the focus.
   */
  function showProblem(box, answer, form) {
    const p = answer.body || {};
    const violations = Array.isArray(p.violations) ? p.violations : [];
    const joined = violations.map((v) => v.field + ': ' + v.message).join('; ');
    box.innerHTML = `<p class="title" data-testid="problem-title">${esc(p.title || 'Refused')} (${answer.status})</p>
      ${p.detail && p.detail !== joined ? `<p data-testid="problem-detail">${esc(p.detail)}</p>` : ''}
      ${violations.length ? `<ul>${violations.map((v) => `<li><b>${esc(v.field)}</b>: ${esc(v.message)}</li>`).join('')}</ul>` : ''}`;
    const fields = violations.map((v) => v.field).concat(p.field ? [p.field] : []);
    let first = null;
    for (const name of fields) {
      const el = form.elements[name];
      if (el && el.setAttribute) {
        const folded = el.closest('details');
        if (folded) folded.open = true;
        el.setAttribute('aria-invalid', 'true');
        el.setAttribute('aria-errormessage', box.id);
        first = first || el;
      }
    }
    if (first) first.focus();
  }

  function size(text) {
    const m = /^\s*(\d+)\s*([kKmMgG])?[iI]?[bB]?\s*$/.exec(text);
    if (!m) return text; // sent as typed: the server's answer names the field
    const shift = { k: 10, m: 20, g: 30 }[(m[2] || '').toLowerCase()] || 0;
    return Number(m[1]) * 2 ** shift;
  }

  function number(text) {
    return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
  }

  function decimal(text) {
    return /^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text;
  }

  // ---- clicks, focus, announcements

  function onClick(event) {
    const button = event.target.closest('button[data-action]');
    if (!button) return;
    if (button.dataset.action === 'group') {
      selectGroup(button.dataset.value, true);
    } else if (button.dataset.action === 'job') {
      selectedJob = button.dataset.value;
      renderDetail();
      const heading = $('job-h');
      if (heading) { heading.setAttribute('tabindex', '-1'); heading.focus(); }
    }
  }

  /** Replaces a section's HTML when it changed, keeping keyboard focus on the element with the same data-key. */
  function replace(id, html) {
    if (rendered[id] === html) return;
    rendered[id] = html;
    const el = $(id);
    const active = document.activeElement;
    const key = active && el.contains(active) ? active.dataset.key : null;
    const openDetails = [...el.querySelectorAll('details[open] > summary')].map((s) => s.textContent);
    el.innerHTML = html;
    for (const d of el.querySelectorAll('details')) {
      if (openDetails.includes(d.querySelector('summary').textContent)) d.open = true;
    }
    if (key) {
      const again = el.querySelector(`[data-key="${CSS.escape(key)}"]`);
      if (again) again.focus();
    }
  }

  function announceChange(key, state, message) {
    const before = announced.get(key);
    announced.set(key, state);
    if (before !== undefined && before !== state) say(message);
  }

  function say(message) {
    $('announce').textContent = message;
  }

  // ---- plots (hand-written SVG; colours come from app.css, so both colour schemes work)

  const W = 600, H = 360, M = { l: 64, r: 36, t: 16, b: 62 };

  function busbwPlot(rows, title) {
    const pts = rows.filter((r) => r.bytes > 0);
    const lx = pts.map((r) => Math.log2(r.bytes));
    let x0 = Math.floor(Math.min(...lx)), x1 = Math.ceil(Math.max(...lx));
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    const yMax = niceMax(Math.max(...pts.map((r) => r.busBandwidthGBps), 0));
    const sx = (v) => M.l + (v - x0) / (x1 - x0) * (W - M.l - M.r);
    const sy = (v) => H - M.b - v / yMax * (H - M.t - M.b);
    const every = Math.max(1, Math.ceil((x1 - x0 + 1) / 9));
    let grid = '';
    for (let e = x0; e <= x1; e++) {
      const x = sx(e).toFixed(1);
      grid += `<line class="grid" x1="${x}" x2="${x}" y1="${M.t}" y2="${H - M.b}"/>`;
      if ((e - x0) % every === 0) grid += `<text class="tick" x="${x}" y="${H - M.b + 22}" text-anchor="middle">${bytes(2 ** e)}</text>`;
    }
    for (let i = 0; i <= 5; i++) {
      const v = yMax * i / 5, y = sy(v).toFixed(1);
      grid += `<line class="grid" x1="${M.l}" x2="${W - M.r}" y1="${y}" y2="${y}"/>`
        + `<text class="tick" x="${M.l - 8}" y="${(+y + 4).toFixed(1)}" text-anchor="end">${fmt(v, tickDigits(yMax / 5))}</text>`;
    }
    const line = pts.map((r, i) => `${sx(lx[i]).toFixed(1)},${sy(r.busBandwidthGBps).toFixed(1)}`).join(' ');
    const dots = pts.map((r, i) => `<circle class="point${r.wrongElements > 0 ? ' wrong' : ''}" data-testid="point" data-bytes="${r.bytes}"
      cx="${sx(lx[i]).toFixed(1)}" cy="${sy(r.busBandwidthGBps).toFixed(1)}" r="4"><title>${bytes(r.bytes)}: ${fmt(r.busBandwidthGBps, 2)} GB/s</title></circle>`).join('');
    const id = 'p' + Math.random().toString(36).slice(2, 8);
    return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}">
      <title id="${id}">${esc(title)}</title>${grid}
      <line class="axis" x1="${M.l}" x2="${W - M.r}" y1="${H - M.b}" y2="${H - M.b}"/><line class="axis" x1="${M.l}" x2="${M.l}" y1="${M.t}" y2="${H - M.b}"/>
      <text class="label" data-testid="x-label" x="${(M.l + W - M.r) / 2}" y="${H - 12}" text-anchor="middle">message size (log&#8322; scale)</text>
      <text class="label" data-testid="y-label" transform="translate(18 ${(M.t + H - M.b) / 2}) rotate(-90)" text-anchor="middle">bus bandwidth (GB/s)</text>
      <polyline class="series" points="${line}"/>${dots}</svg>`;
  }

  function historyPlot(points, title) {
    const n = points.length;
    const yMax = niceMax(Math.max(...points.map((p) => p.peak)));
    const sx = (i) => M.l + (n === 1 ? 0.5 : i / (n - 1)) * (W - M.l - M.r);
    const sy = (v) => H - M.b - v / yMax * (H - M.t - M.b);
    const every = Math.max(1, Math.ceil(n / 10));
    let grid = '';
    points.forEach((p, i) => {
      if (i % every === 0) grid += `<text class="tick" x="${sx(i).toFixed(1)}" y="${H - M.b + 22}" text-anchor="middle">#${p.seq}</text>`;
    });
    for (let i = 0; i <= 5; i++) {
      const v = yMax * i / 5, y = sy(v).toFixed(1);
      grid += `<line class="grid" x1="${M.l}" x2="${W - M.r}" y1="${y}" y2="${y}"/><text class="tick" x="${M.l - 8}" y="${(+y + 4).toFixed(1)}" text-anchor="end">${fmt(v, tickDigits(yMax / 5))}</text>`;
    }
    const line = points.map((p, i) => `${sx(i).toFixed(1)},${sy(p.peak).toFixed(1)}`).join(' ');
    const dots = points.map((p, i) => `<circle class="point" cx="${sx(i).toFixed(1)}" cy="${sy(p.peak).toFixed(1)}" r="4"><title>job ${p.seq}, ${when(p.at)}: ${fmt(p.peak, 2)} GB/s</title></circle>`).join('');
    const id = 'h' + Math.random().toString(36).slice(2, 8);
    return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}"><title id="${id}">${esc(title)}</title>${grid}
      <line class="axis" x1="${M.l}" x2="${W - M.r}" y1="${H - M.b}" y2="${H - M.b}"/><line class="axis" x1="${M.l}" x2="${M.l}" y1="${M.t}" y2="${H - M.b}"/>
      <text class="label" x="${(M.l + W - M.r) / 2}" y="${H - 12}" text-anchor="middle">run (job number, oldest first)</text>
      <text class="label" transform="translate(18 ${(M.t + H - M.b) / 2}) rotate(-90)" text-anchor="middle">peak bus bandwidth (GB/s)</text>
      <polyline class="series" points="${line}"/>${dots}</svg>`;
  }

  /** The fewest decimals that write every multiple of step exactly (0.24 -> 2, 2.5 -> 1, 3 -> 0). */
  function tickDigits(step) {
    for (let d = 0; d < 6; d++) {
      const scaled = step * 10 ** d;
      if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
    }
    return 6;
  }

  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = 10 ** Math.floor(Math.log10(v));
    for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v) return m * p;
    return 10 * p;
  }

  // ---- formatting

  function esc(v) {
    return String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }

  function bytes(n) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (n >= 1024 && n % 1024 === 0 && i < units.length - 1) { n /= 1024; i++; }
    return n + ' ' + units[i];
  }

  function fmt(v, digits) {
    return v == null || Number.isNaN(v) ? '-' : Number(v).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }

  function micros(us) {
    return us < 1000 ? fmt(us, 0) + ' &micro;s' : us < 1e6 ? fmt(us / 1000, 1) + ' ms' : fmt(us / 1e6, 1) + ' s';
  }

  function age(ms) {
    return ms < 1000 ? ms + ' ms' : fmt(ms / 1000, 1) + ' s';
  }

  /** A moment with its date, local time: 2026-12-02 05:28:09 (the full timestamp as the tooltip). */
  function when(iso) {
    if (!iso) return '-';
    const d = new Date(iso);
    const two = (n) => String(n).padStart(2, '0');
    const text = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
    return `<time datetime="${esc(iso)}" title="${esc(d.toString())}">${text}</time>`;
  }

  function span(from, to) {
    if (!from || !to) return '-';
    const ms = new Date(to) - new Date(from);
    return ms < 1000 ? ms + ' ms' : fmt(ms / 1000, 1) + ' s';
  }

  function peak(job) {
    return job.results && job.results.length ? fmt(Math.max(...job.results.map((r) => r.busBandwidthGBps)), 2) + ' GB/s' : '-';
  }

  function totalWrong(rows) {
    return rows.reduce((sum, r) => sum + Math.max(0, r.wrongElements), 0);
  }

  function reduces(op) {
    return op === 'all_reduce' || op === 'reduce_scatter' || op === 'reduce';
  }

  function sweepLabel(s) {
    if (!s || !s.op) return '-';
    return `${s.validation ? 'validation, ' : ''}${s.op} ${s.dtype}${reduces(s.op) ? ' ' + s.redop : ''} ${bytes(s.minBytes)}..${bytes(s.maxBytes)} ${s.stepBytes ? '+' + bytes(s.stepBytes) : 'x' + s.stepFactor}${s.excludeRanks && s.excludeRanks.length ? ', without ranks ' + s.excludeRanks.join(', ') : ''}`;
  }

  /** [0,1,2,5] -> "0-2, 5" */
  function ranges(list) {
    const out = [];
    for (let i = 0; i < list.length; i++) {
      let j = i;
      while (j + 1 < list.length && list[j + 1] === list[j] + 1) j++;
      out.push(j > i ? list[i] + '-' + list[j] : String(list[i]));
      i = j;
    }
    return out.join(', ');
  }

  start();
})();
