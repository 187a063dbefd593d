// Skiff's lab dashboard (issue 36): reads slurmrestd's paths (/slurm/v0.0.42/,
// /slurmdb/v0.0.42/) and Skiff's own (/skiff/v1/) from the restd that serves
// it, as the signed-in user, and draws the cluster at a glance, the queue,
// the user's jobs (cancel, output tail), their limits and balance,
// reservations and utilisation.
//
// Who the user is: a token pasted once (`scontrol token`, kept in
// localStorage until "Sign out"), or "#token=..." in the URL (taken and
// removed from the address at once), or none at all when a reverse proxy
// adds X-SLURM-USER-TOKEN itself (restd's /dashboard/session.json says so).
// A link's token never silently replaces the one kept (issue 47, item 11: a
// link from anyone could otherwise sign the user in as someone else): the
// page names the link's user, as ctld knows it, and asks.
// Every API call sends the token in X-SLURM-USER-TOKEN; ctld decides what
// the user may see and do.
//
// Large queues: the page counts jobs by state and pending reason and draws
// at most QUEUE_ROWS rows (filtered), never one row per job.
"use strict";

(function () {
  const API = "/slurm/v0.0.42";
  const DB = "/slurmdb/v0.0.42";
  const TOKEN_KEY = "skiff.dashboard.token";
  const QUEUE_ROWS = 200;
  const REFRESH_MS = 30000;
  const ACTIVE_STATES = new Set(["PENDING", "RUNNING", "SUSPENDED", "CONFIGURING", "COMPLETING",
                                 "REQUEUED", "RESIZING", "STAGE_OUT", "SIGNALING"]);

  const state = {
    token: "",
    proxied: false,      // a proxy (or restd's Unix socket) authenticates for us
    user: "",
    cluster: "",
    nodes: [],
    jobs: [],
    gpuUse: new Map(),   // job id -> its sampled GPUs (/skiff/v1/gpu_usage)
    utilisationRange: "day",
    outputJob: null,
    refreshTimer: null,
  };
  const timings = { start: performance.now() };
  window.skiffDashboard = { timings: timings };

  const {
    $, el, replace, num, fmtTime, fmtDuration, fmtNumber, stateWord, stateSpan, table, card,
    sectionError, parseGres, sharedGpusInUse, gpuCell,
  } = window.SkiffParts;  // dashboard_parts.js

  // ---------- the API ----------

  class ApiError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  async function api(path, options) {
    const headers = { "Accept": "application/json" };
    if (state.token) headers["X-SLURM-USER-TOKEN"] = state.token;
    const response = await fetch(path, Object.assign({ headers: headers, cache: "no-store" }, options || {}));
    let body = null;
    try { body = await response.json(); } catch (e) { body = null; }
    if (!response.ok) {
      const first = body && Array.isArray(body.errors) && body.errors[0];
      const why = first ? (first.description || first.error) : response.statusText;
      if (response.status === 401) signOut("Your token was refused (" + why + "). Run scontrol token again.");
      throw new ApiError(response.status, why + " (HTTP " + response.status + ")");
    }
    return body;
  }

  // ---------- signing in ----------

  function normalizeToken(text) {
    let token = String(text || "").trim();
    token = token.replace(/^export\s+/, "").replace(/^SLURM_JWT=/, "").trim();
    token = token.replace(/^["']|["']$/g, "");
    return token;
  }

  function tokenFromFragment() {
    const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (!match) return "";
    // The token must not stay in the address bar or the history.
    history.replaceState(null, "", location.pathname + location.search);
    return normalizeToken(decodeURIComponent(match[1]));
  }

  function showSignIn(message) {
    document.body.dataset.state = "signed-out";
    $("main").hidden = true;
    $("nav").hidden = true;
    $("sign-out").hidden = true;
    $("user-name").textContent = "";
    $("sign-in").hidden = false;
    $("sign-in-error").hidden = !message;
    $("sign-in-error").textContent = message || "";
  }

  function signOut(message) {
    localStorage.removeItem(TOKEN_KEY);
    state.token = "";
    if (state.refreshTimer) clearInterval(state.refreshTimer);
    state.refreshTimer = null;
    if (state.proxied) return;  // nothing of ours to forget
    showSignIn(message);
  }

  async function signIn() {
    // ping says who ctld takes us for and which cluster this is.
    const ping = await api(API + "/ping");
    state.user = (ping.meta && ping.meta.client && ping.meta.client.user) || "";
    state.cluster = (ping.meta && ping.meta.slurm && ping.meta.slurm.cluster) || "";
    $("user-name").textContent = state.user;
    $("cluster-name").textContent = state.cluster;
    $("sign-in").hidden = true;
    $("main").hidden = false;
    $("nav").hidden = false;
    $("sign-out").hidden = state.proxied;
    await refreshAll();
    document.body.dataset.state = "ready";
    timings.ready = performance.now();
    if (!state.refreshTimer) {
      state.refreshTimer = setInterval(() => {
        if (document.visibilityState === "visible") refreshAll();
      }, REFRESH_MS);
    }
  }

  // The user ctld takes `token` for, or "" when it refuses the token.
  async function userOf(token) {
    try {
      const response = await fetch(API + "/ping", {
        headers: { "Accept": "application/json", "X-SLURM-USER-TOKEN": token }, cache: "no-store",
      });
      if (!response.ok) return "";
      const ping = await response.json();
      return (ping.meta && ping.meta.client && ping.meta.client.user) || "";
    } catch (e) {
      return "";
    }
  }

  // A link brought `linked` while `stored` is kept: ask whether to switch.
  // Resolves once the user chose, with the token to use.
  async function confirmLinkedToken(linked, stored) {
    const [linkedUser, storedUser] = await Promise.all([userOf(linked), userOf(stored)]);
    if (!linkedUser) return stored;  // a token ctld refuses changes nothing
    document.body.dataset.state = "confirm-token";
    $("sign-in").hidden = true;
    $("main").hidden = true;
    $("nav").hidden = true;
    $("token-confirm-text").textContent = "This link signs you in as " + linkedUser +
        ". This browser is signed in as " + (storedUser || "a user whose token has expired") +
        ". Switch to " + linkedUser + "?";
    $("token-switch").textContent = "Switch to " + linkedUser;
    $("token-keep").textContent = storedUser ? "Stay " + storedUser : "Keep the old token";
    $("token-confirm").hidden = false;
    return new Promise((resolve) => {
      const choose = (token) => {
        $("token-confirm").hidden = true;
        $("token-switch").onclick = null;
        $("token-keep").onclick = null;
        resolve(token);
      };
      $("token-switch").onclick = () => choose(linked);
      $("token-keep").onclick = () => choose(stored);
    });
  }

  async function start() {
    const fromFragment = tokenFromFragment();
    const stored = localStorage.getItem(TOKEN_KEY) || "";
    let token = fromFragment || stored;
    if (fromFragment && stored && fromFragment !== stored) {
      token = await confirmLinkedToken(fromFragment, stored);
    }
    if (token) localStorage.setItem(TOKEN_KEY, token);
    state.token = token;
    if (!state.token) {
      // Without a token of our own, a reverse proxy may be signing us in.
      try {
        const session = await (await fetch("/dashboard/session.json", { cache: "no-store" })).json();
        state.proxied = session.authenticated_by !== "none";
      } catch (e) { state.proxied = false; }
      if (!state.proxied) { showSignIn(""); return; }
    }
    try {
      await signIn();
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 401)) showSignIn(e.message);
    }
  }

  // ---------- loading ----------

  async function refreshAll() {
    const started = performance.now();
    await Promise.all([
      loadClusterAndQueue(),
      loadLimits(),
      loadReservations(),
      loadUtilisation(),
    ]);
    if (state.outputJob !== null) loadOutput(state.outputJob);
    $("updated").textContent = "Updated " + new Date().toLocaleTimeString() + " (" +
        Math.round(performance.now() - started) + " ms)";
  }

  async function loadClusterAndQueue() {
    const nodesPromise = api(API + "/nodes").then((r) => r.nodes || []);
    const jobsPromise = api(API + "/jobs").then((r) => r.jobs || []);
    // The GPUs' use: the user's own jobs, every job's for admins; without it
    // (an older restd) the rows have no figures.
    const usePromise = api("/skiff/v1/gpu_usage").then((r) => r.jobs || []).catch(() => []);
    try {
      state.nodes = await nodesPromise;
    } catch (e) {
      sectionError($("glance-cards"), e);
    }
    try {
      state.jobs = await jobsPromise;
    } catch (e) {
      sectionError($("queue-table"), e);
      sectionError($("my-jobs-table"), e);
    }
    state.gpuUse = new Map((await usePromise).map((j) => [num(j.job_id), j.gpus]));
    renderGlance();
    if (timings.glance === undefined) timings.glance = performance.now();
    renderQueue();
    renderMyJobs();
    if (timings.queue === undefined) timings.queue = performance.now();
  }

  // ---------- at a glance ----------

  function nodeUsable(node) {
    const words = Array.isArray(node.state) ? node.state : [node.state];
    return !words.some((w) => w === "DOWN" || w === "DRAIN" || w === "DRAINING" ||
                              w === "NOT_RESPONDING" || w === "FUTURE");
  }

  function renderGlance() {
    const nodes = state.nodes;
    const byState = new Map();
    let cpus = 0, allocCpus = 0;
    const gpuTypes = new Map();  // type -> {total, used, free}
    for (const node of nodes) {
      const word = stateWord(node.state);
      byState.set(word, (byState.get(word) || 0) + 1);
      cpus += num(node.cpus) || 0;
      allocCpus += num(node.alloc_cpus) || 0;
      const used = new Map();
      for (const g of parseGres(node.gres_used)) used.set(g.type, (used.get(g.type) || 0) + g.count);
      // A GPU with a shard or MPS job on it is in use (a node shares GPUs of one type).
      const shared = sharedGpusInUse(node.gres_used);
      if (shared) {
        const type = (parseGres(node.gres)[0] || {}).type || "";
        used.set(type, (used.get(type) || 0) + shared);
      }
      for (const g of parseGres(node.gres)) {
        const type = g.type || "gpu";
        const entry = gpuTypes.get(type) || { total: 0, used: 0, free: 0 };
        const u = used.get(g.type) || 0;
        entry.total += g.count;
        entry.used += u;
        if (nodeUsable(node)) entry.free += Math.max(0, g.count - u);
        gpuTypes.set(type, entry);
      }
    }
    let gpuTotal = 0, gpuFree = 0;
    for (const entry of gpuTypes.values()) { gpuTotal += entry.total; gpuFree += entry.free; }
    const running = state.jobs.filter((j) => stateWord(j.job_state) === "RUNNING").length;
    const pending = state.jobs.filter((j) => stateWord(j.job_state) === "PENDING").length;
    const idle = byState.get("IDLE") || 0;
    replace($("glance-cards"),
      card("Free GPUs", gpuFree + " / " + gpuTotal, gpuTotal ? "on usable nodes" : "no GPUs"),
      card("Nodes", String(nodes.length),
           Array.from(byState.entries()).map(([s, n]) => n + " " + s.toLowerCase()).join(", ")),
      card("CPUs in use", allocCpus + " / " + cpus, idle + " idle node" + (idle === 1 ? "" : "s")),
      card("Jobs", String(running) + " running", pending + " pending"));
    const types = Array.from(gpuTypes.entries()).sort((a, b) => a[0].localeCompare(b[0]));
    replace($("gpu-types"), ...(types.length ? types.map(([type, e]) =>
      el("div", { className: "card gpu-type", "data-gpu-type": type }, [
        el("div", { className: "label", text: type }),
        el("div", { className: "value", text: e.free + " free" }),
        el("div", { className: "sub", text: e.used + " in use of " + e.total }),
      ])) : [el("p", { className: "hint", text: "No GPUs in this cluster." })]));
    const rows = nodes.map((n) => {
      const total = parseGres(n.gres).reduce((s, g) => s + g.count, 0);
      const used = parseGres(n.gres_used).reduce((s, g) => s + g.count, 0) +
          sharedGpusInUse(n.gres_used);
      return [
        n.name,
        stateSpan(n.state),
        (num(n.alloc_cpus) || 0) + "/" + (num(n.cpus) || 0),
        total ? used + "/" + total + " " + parseGres(n.gres).map((g) => g.type).filter(Boolean).join(",") : "–",
        Math.round((num(n.alloc_memory) || 0) / 1024) + "/" + Math.round((num(n.real_memory) || 0) / 1024) + " G",
        (n.partitions || []).join(","),
        n.reason || "",
      ];
    });
    replace($("nodes"), table([
      { label: "Node" }, { label: "State" }, { label: "CPUs", num: true }, { label: "GPUs" },
      { label: "Memory", num: true, wide: true }, { label: "Partitions", wide: true },
      { label: "Reason", wide: true, wrap: true },
    ], rows));
  }

  // ---------- the queue ----------

  const STATE_ORDER = { RUNNING: 0, COMPLETING: 1, SUSPENDED: 2, PENDING: 3 };

  function queueOrder(a, b) {
    const sa = STATE_ORDER[stateWord(a.job_state)], sb = STATE_ORDER[stateWord(b.job_state)];
    const oa = sa === undefined ? 9 : sa, ob = sb === undefined ? 9 : sb;
    if (oa !== ob) return oa - ob;
    if (oa === 3) {  // pending: the soonest estimated start, then the highest priority
      const ta = num(a.start_time) || Infinity, tb = num(b.start_time) || Infinity;
      if (ta !== tb) return ta - tb;
      return (num(b.priority) || 0) - (num(a.priority) || 0);
    }
    return num(a.job_id) - num(b.job_id);
  }

  function jobIdText(job) {
    const task = num(job.array_task_id);
    if (num(job.array_job_id) && task !== null) return num(job.array_job_id) + "_" + task;
    return String(job.job_id);
  }

  function jobMatches(job, words) {
    if (!words.length) return true;
    const hay = [jobIdText(job), job.job_id, job.user_name, job.name, job.partition,
                 stateWord(job.job_state), job.state_reason, job.account, job.qos, job.nodes]
                    .join(" ").toLowerCase();
    return words.every((w) => hay.includes(w));
  }

  function renderQueue() {
    const jobs = state.jobs.filter((j) => ACTIVE_STATES.has(stateWord(j.job_state)));
    const counts = new Map(), reasons = new Map();
    for (const job of jobs) {
      const s = stateWord(job.job_state);
      counts.set(s, (counts.get(s) || 0) + 1);
      if (s === "PENDING") reasons.set(job.state_reason || "None", (reasons.get(job.state_reason || "None") || 0) + 1);
    }
    const chips = [];
    for (const [s, n] of counts) chips.push(el("span", { className: "chip" }, [el("b", { text: String(n) }), " " + s.toLowerCase()]));
    for (const [r, n] of Array.from(reasons).sort((a, b) => b[1] - a[1]).slice(0, 8)) {
      chips.push(el("span", { className: "chip", title: "pending for " + r }, [el("b", { text: String(n) }), " waiting: " + r]));
    }
    if (!chips.length) chips.push(el("span", { className: "hint", text: "The queue is empty." }));
    replace($("queue-summary"), ...chips);

    const words = $("queue-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    const matching = [];
    for (const job of jobs) if (jobMatches(job, words)) matching.push(job);
    matching.sort(queueOrder);
    const shown = matching.slice(0, QUEUE_ROWS);
    const now = Date.now() / 1000;
    const rows = shown.map((job) => {
      const s = stateWord(job.job_state);
      const start = num(job.start_time);
      let when = "";
      if (s === "RUNNING" && start) when = fmtDuration(now - start);
      // A pending job's reason carries its estimated start too, for a phone,
      // which has no room for the time column.
      const reason = (job.state_reason || "") + (start ? " (~" + fmtTime(start) + ")" : "");
      return [
        jobIdText(job), job.user_name, job.name, job.partition, stateSpan(job.job_state),
        s === "PENDING" ? reason : (job.nodes || ""),
        gpuCell(job, state.gpuUse.get(num(job.job_id))),
        when,
      ];
    });
    replace($("queue-table"), rows.length ? table([
      { label: "Job" }, { label: "User" }, { label: "Name", wide: true }, { label: "Partition", wide: true },
      { label: "State" }, { label: "Where / why", wrap: true }, { label: "GPUs" }, { label: "Run time", wide: true },
    ], rows) : null);
    $("queue-more").textContent = matching.length > shown.length
        ? "Showing " + shown.length + " of " + matching.length + " jobs; filter to see others."
        : (words.length ? matching.length + " matching jobs." : "");
  }

  // ---------- my jobs ----------

  function renderMyJobs() {
    const mine = state.jobs.filter((j) => j.user_name === state.user)
                           .sort((a, b) => num(b.job_id) - num(a.job_id)).slice(0, QUEUE_ROWS);
    if (!mine.length) {
      replace($("my-jobs-table"), el("p", { className: "hint", text: "You have no jobs in the queue." }));
      return;
    }
    const now = Date.now() / 1000;
    const rows = mine.map((job) => {
      const s = stateWord(job.job_state);
      const id = num(job.job_id);
      const start = num(job.start_time), end = num(job.end_time);
      let when = "";
      if (s === "PENDING") when = start ? "starts ~" + fmtTime(start) : (job.state_reason || "");
      else if (start) when = fmtDuration((end && s !== "RUNNING" ? end : now) - start);
      const actions = el("span", { className: "actions" });
      if (ACTIVE_STATES.has(s)) {
        actions.appendChild(el("button", { type: "button", className: "danger", "data-cancel-job": id,
                                           onclick: (e) => cancelClicked(e.currentTarget, id),
                                           text: "Cancel" }));
      }
      if (job.standard_output && num(job.batch_flag) !== 0) {
        actions.appendChild(document.createTextNode(" "));
        actions.appendChild(el("button", { type: "button", "data-output-job": id,
                                           onclick: () => loadOutput(id), text: "Output" }));
      }
      return [jobIdText(job), job.name, stateSpan(job.job_state),
              gpuCell(job, state.gpuUse.get(num(job.job_id))), when, actions];
    });
    replace($("my-jobs-table"), table([
      { label: "Job" }, { label: "Name", wide: true }, { label: "State" }, { label: "GPUs" },
      { label: "Time", wide: true }, { label: "" },
    ], rows));
  }

  // The first click arms the button, the second (within 5 s) cancels: no
  // dialog, which a phone makes awkward and a pocket makes easy.
  async function cancelClicked(button, id) {
    if (!button.classList.contains("confirm")) {
      button.classList.add("confirm");
      button.textContent = "Really cancel?";
      setTimeout(() => {
        if (button.isConnected && button.classList.contains("confirm")) {
          button.classList.remove("confirm");
          button.textContent = "Cancel";
        }
      }, 5000);
      return;
    }
    button.disabled = true;
    button.textContent = "Cancelling…";
    try {
      await api(API + "/job/" + encodeURIComponent(id), { method: "DELETE" });
      button.textContent = "Cancelled";
      button.dataset.cancelled = "1";
      await loadClusterAndQueue();
    } catch (e) {
      button.disabled = false;
      button.classList.remove("confirm");
      button.textContent = "Cancel";
      const note = el("span", { className: "error", text: " " + e.message });
      button.after(note);
    }
  }

  async function loadOutput(id) {
    state.outputJob = id;
    $("output-panel").hidden = false;
    $("output-job").textContent = String(id);
    try {
      const r = await api("/skiff/v1/job/" + encodeURIComponent(id) + "/output?lines=200");
      $("output-text").textContent = r.output || "";
      $("output-note").textContent = (r.path || "") + (r.truncated ? " — last " + r.lines + " lines" : "");
      $("output-panel").dataset.loaded = String(id);
    } catch (e) {
      $("output-text").textContent = "";
      $("output-note").textContent = e.message;
    }
  }

  // ---------- limits and balance ----------

  function tresValue(list, name) {
    for (const t of list || []) {
      const full = t.type ? t.type + (t.name ? "/" + t.name : "") : t.name;
      if (full === name || t.name === name) return num(t.value !== undefined ? t.value : t.count);
    }
    return null;
  }

  async function loadLimits() {
    const container = $("limits-body");
    const [status, shares] = await Promise.allSettled([
      api("/skiff/v1/status"),
      api(API + "/shares"),
    ]);
    const parts = [];
    if (status.status === "fulfilled") {
      const s = status.value;
      const limits = s.gpu_limits || [];
      parts.push(el("p", { text: "You hold " + (s.user_gpus || 0) + " GPU" + (s.user_gpus === 1 ? "" : "s") + " now." }));
      if (!limits.length) parts.push(el("p", { className: "hint", text: "No GPU cap applies to you." }));
      for (const l of limits) {
        const kind = l.kind === "qos" ? "QOS" : (l.kind === "account" ? "account" : "association");
        parts.push(el("div", { className: "limit", "data-limit": l.name }, [
          el("div", { className: "what" }, [
            el("span", { text: "GPUs on " + kind + " " + l.name }),
            el("span", { text: l.used + " / " + l.limit }),
          ]),
          el("meter", { min: 0, max: Math.max(1, l.limit), value: l.used, low: l.limit * 0.75,
                        high: l.limit * 0.99, optimum: 0 }),
        ]));
      }
    } else {
      parts.push(el("p", { className: "error", text: "Limits: " + status.reason.message }));
    }
    if (shares.status === "fulfilled") {
      const rows = (shares.value.shares && shares.value.shares.shares) || shares.value.shares || [];
      const mine = rows.filter((r) => r.name === state.user && (r.type || []).includes("USER"));
      const byName = new Map(rows.filter((r) => !(r.type || []).includes("USER")).map((r) => [r.name, r]));
      const budget = [];
      for (const row of mine) {
        // GrpTRESMins gres/gpu on the user's line and on each account above.
        let line = row, account = row.parent;
        const seen = new Set();
        while (line) {
          const limit = tresValue(line.tres && line.tres.group_minutes, "gres/gpu");
          if (limit !== null && isFinite(limit)) {
            const used = (tresValue(line.tres && line.tres.usage, "gres/gpu") || 0) / 60;
            budget.push([line === row ? "you in " + row.parent : "account " + line.name,
                         fmtNumber(Math.max(0, limit - used) / 60) + " h",
                         fmtNumber(limit / 60) + " h"]);
          }
          if (!account || seen.has(account)) break;
          seen.add(account);
          line = byName.get(account);
          account = line && line.parent;
        }
      }
      parts.push(el("h3", { text: "Fair-share" }));
      if (mine.length) {
        parts.push(table([{ label: "Account" }, { label: "Fair-share", num: true },
                          { label: "Effective usage", num: true }, { label: "Shares", num: true, wide: true }],
          mine.map((r) => [r.parent, fmtNumber(num(r.fairshare && r.fairshare.factor), 3),
                           fmtNumber(num(r.effective_usage), 3), fmtNumber(num(r.shares_normalized), 3)])));
      } else {
        parts.push(el("p", { className: "hint", text: "No fair-share line for " + state.user + "." }));
      }
      parts.push(el("h3", { text: "GPU-hours left" }));
      parts.push(budget.length
          ? table([{ label: "Budget of" }, { label: "Left", num: true }, { label: "Of", num: true }], budget)
          : el("p", { className: "hint", text: "No GPU-hour budget (GrpTRESMins) applies to you." }));
    } else {
      parts.push(el("p", { className: "error", text: "Fair-share: " + shares.reason.message }));
    }
    replace(container, ...parts);
  }

  // ---------- reservations ----------

  async function loadReservations() {
    try {
      const r = await api(API + "/reservations");
      const list = r.reservations || [];
      if (!list.length) {
        replace($("reservations-table"), el("p", { className: "hint", text: "No reservations." }));
        return;
      }
      const now = Date.now() / 1000;
      replace($("reservations-table"), table([
        { label: "Name" }, { label: "Start" }, { label: "End" }, { label: "Nodes", wrap: true },
        { label: "Users", wide: true, wrap: true }, { label: "Flags", wide: true, wrap: true },
      ], list.map((v) => {
        const s = num(v.start_time), e = num(v.end_time);
        return [
          v.name + (s && s <= now && (!e || e > now) ? " (open)" : ""),
          fmtTime(s), fmtTime(e), v.node_list || "",
          [v.users, v.accounts].filter(Boolean).join(" "),
          (v.flags || []).join(","),
        ];
      })));
    } catch (e) {
      sectionError($("reservations-table"), e);
    }
  }

  // ---------- utilisation ----------

  function jobTres(job, type, name) {
    const allocated = (job.tres && job.tres.allocated) || [];
    let total = 0;
    for (const t of allocated) {
      if (t.type === type && (name === undefined || t.name === name)) total += num(t.count) || 0;
    }
    return total;
  }

  async function loadUtilisation() {
    const range = state.utilisationRange;
    const span = range === "day" ? 86400 : 7 * 86400;
    const bucket = range === "day" ? 3600 : 6 * 3600;
    const now = Math.floor(Date.now() / 1000);
    const from = Math.floor((now - span) / bucket) * bucket;
    const buckets = Math.ceil((now - from) / bucket);
    try {
      const r = await api(DB + "/jobs?start_time=" + from + "&end_time=" + now + "&skip_steps=true");
      if (range !== state.utilisationRange) return;  // the user switched meanwhile
      const gpuHours = new Array(buckets).fill(0), cpuHours = new Array(buckets).fill(0);
      const perUser = new Map();
      for (const job of r.jobs || []) {
        const t = job.time || {};
        const start = num(t.start);
        if (!start) continue;
        let end = num(t.end);
        if (!end || end < start) end = now;
        const gpus = jobTres(job, "gres", "gpu"), cpus = jobTres(job, "cpu");
        const u = perUser.get(job.user) || { gpu: 0, cpu: 0, jobs: 0 };
        u.jobs += 1;
        for (let i = Math.max(0, Math.floor((start - from) / bucket)); i < buckets; ++i) {
          const b0 = from + i * bucket, b1 = b0 + bucket;
          if (b0 >= end) break;
          const overlap = Math.max(0, Math.min(end, b1) - Math.max(start, b0)) / 3600;
          gpuHours[i] += gpus * overlap;
          cpuHours[i] += cpus * overlap;
          u.gpu += gpus * overlap;
          u.cpu += cpus * overlap;
        }
        perUser.set(job.user, u);
      }
      const totalGpu = gpuHours.reduce((a, b) => a + b, 0);
      const totalCpu = cpuHours.reduce((a, b) => a + b, 0);
      let gpuCapacity = 0;
      for (const n of state.nodes) gpuCapacity += parseGres(n.gres).reduce((s, g) => s + g.count, 0);
      const hours = (now - from) / 3600;
      replace($("utilisation-summary"),
        card("GPU-hours", fmtNumber(totalGpu), gpuCapacity ? fmtNumber(100 * totalGpu / (gpuCapacity * hours), 0) + "% of capacity" : ""),
        card("CPU-hours", fmtNumber(totalCpu), ""),
        card("Jobs", String((r.jobs || []).length), range === "day" ? "last 24 h" : "last 7 days"));
      const series = totalGpu > 0 ? gpuHours : cpuHours;
      drawChart(series, from, bucket, totalGpu > 0 ? "GPU-hours" : "CPU-hours", range);
      const users = Array.from(perUser.entries()).sort((a, b) => b[1].gpu - a[1].gpu || b[1].cpu - a[1].cpu).slice(0, 10);
      replace($("utilisation-users"), users.length ? table(
        [{ label: "User" }, { label: "GPU-hours", num: true }, { label: "CPU-hours", num: true }, { label: "Jobs", num: true }],
        users.map(([name, u]) => [name, fmtNumber(u.gpu), fmtNumber(u.cpu), u.jobs])) : null);
    } catch (e) {
      replace($("utilisation-summary"));
      replace($("utilisation-users"));
      sectionError($("utilisation-chart"), e);
    }
  }

  function drawChart(series, from, bucket, label, range) {
    const NS = "http://www.w3.org/2000/svg";
    // Drawn at the container's own width, so its text stays readable on a phone.
    const width = Math.max(280, $("utilisation-chart").clientWidth || 600);
    const height = 160, left = 38, bottom = 18, top = 16;
    const max = Math.max(...series) || 1;  // an empty period still gets an axis
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label + " per " + (bucket / 3600) + " h");
    const add = (tag, attrs, text) => {
      const node = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
      if (text !== undefined) node.textContent = text;
      svg.appendChild(node);
      return node;
    };
    const plotH = height - top - bottom, barW = (width - left) / series.length;
    for (const f of [0, 0.5, 1]) {
      const y = top + plotH * (1 - f);
      add("line", { x1: left, x2: width, y1: y, y2: y, class: "grid" });
      add("text", { x: left - 4, y: y + 3, "text-anchor": "end", class: "axis" }, fmtNumber(max * f));
    }
    add("text", { x: left, y: 10, class: "axis" }, label + " per " + (bucket / 3600) + " h");
    series.forEach((v, i) => {
      const h = plotH * v / max;
      const bar = add("rect", { x: left + i * barW + 1, y: top + plotH - h, width: Math.max(1, barW - 2), height: h, class: "bar" });
      const title = document.createElementNS(NS, "title");
      title.textContent = fmtTime(from + i * bucket) + ": " + fmtNumber(v);
      bar.appendChild(title);
      const every = (range === "day" ? 6 : 4) * (width < 400 ? 2 : 1);
      if (i % every === 0) {
        const d = new Date((from + i * bucket) * 1000);
        const text = range === "day" ? String(d.getHours()).padStart(2, "0") + ":00" : (d.getMonth() + 1) + "/" + d.getDate();
        add("text", { x: left + i * barW, y: height - 4, class: "axis" }, text);
      }
    });
    replace($("utilisation-chart"), svg);
  }

  // ---------- wiring ----------

  function wire() {
    $("sign-in-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const token = normalizeToken($("token-input").value);
      if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)) {
        showSignIn("That does not look like a token: paste the whole output of scontrol token.");
        return;
      }
      localStorage.setItem(TOKEN_KEY, token);
      state.token = token;
      $("token-input").value = "";
      signIn().catch((err) => {
        if (!(err instanceof ApiError && err.status === 401)) showSignIn(err.message);
      });
    });
    $("sign-out").addEventListener("click", () => signOut(""));
    let filterTimer = null;
    $("queue-filter").addEventListener("input", () => {
      clearTimeout(filterTimer);
      filterTimer = setTimeout(renderQueue, 120);
    });
    $("output-refresh").addEventListener("click", () => { if (state.outputJob !== null) loadOutput(state.outputJob); });
    $("output-close").addEventListener("click", () => { state.outputJob = null; $("output-panel").hidden = true; });
    for (const button of document.querySelectorAll(".tabs button")) {
      button.addEventListener("click", () => {
        for (const b of document.querySelectorAll(".tabs button")) b.classList.toggle("active", b === button);
        state.utilisationRange = button.dataset.range;
        loadUtilisation();
      });
    }
  }

  wire();
  // A "#token=..." given to a page already open is a new sign-in: start over.
  window.addEventListener("hashchange", () => {
    if (/(?:^#|&)token=/.test(location.hash)) location.reload();
  });
  start();
})();
