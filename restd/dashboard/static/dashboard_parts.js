// The dashboard's parts that hold no state (issue 36; split from dashboard.js,
// which uses them): building DOM nodes and tables, formatting numbers, times
// and states, and reading GPUs out of Slurm's gres and TRES strings. Loaded
// before dashboard.js and handed over as window.SkiffParts.
"use strict";

(function () {
  // ---------- small helpers ----------

  function $(id) { return document.getElementById(id); }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const [name, value] of Object.entries(attrs)) {
        if (value === undefined || value === null || value === false) continue;
        if (name === "text") node.textContent = String(value);
        else if (name === "className") node.className = value;
        else if (name === "onclick") node.addEventListener("click", value);
        else node.setAttribute(name, value === true ? "" : String(value));
      }
    }
    for (const child of children || []) {
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function replace(container, ...children) {
    container.replaceChildren(...children.filter((c) => c !== null && c !== undefined));
  }

  // data_parser's numbers come plain or as {set, infinite, number}.
  function num(value) {
    if (typeof value === "number") return value;
    if (value && typeof value === "object") {
      if (value.infinite) return Infinity;
      if (value.set === false) return null;
      if (typeof value.number === "number") return value.number;
    }
    return null;
  }

  function fmtTime(seconds) {
    if (!seconds) return "";
    const d = new Date(seconds * 1000);
    const now = new Date();
    const pad = (n) => String(n).padStart(2, "0");
    const hm = pad(d.getHours()) + ":" + pad(d.getMinutes());
    if (d.toDateString() === now.toDateString()) return hm;
    return (d.getMonth() + 1) + "/" + d.getDate() + " " + hm;
  }

  function fmtDuration(seconds) {
    if (seconds === null || seconds === undefined || !isFinite(seconds)) return "";
    seconds = Math.max(0, Math.round(seconds));
    const d = Math.floor(seconds / 86400);
    const h = Math.floor((seconds % 86400) / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    if (d) return d + "d " + h + "h";
    if (h) return h + "h " + String(m).padStart(2, "0") + "m";
    return m + "m " + String(seconds % 60).padStart(2, "0") + "s";
  }

  // Small figures keep two decimals (0.04 GPU-hours), large ones one.
  function fmtNumber(n, digits) {
    if (n === null || n === undefined || !isFinite(n)) return "–";
    if (n > 0 && n < 0.01) return "<0.01";  // a job that has just started is not "0"
    if (digits === undefined) digits = Math.abs(n) < 10 ? 2 : 1;
    return n.toLocaleString("en-US", { maximumFractionDigits: digits });
  }

  function stateWord(list) {
    if (Array.isArray(list)) return list.length ? list[0] : "";
    return list ? String(list) : "";
  }

  function stateSpan(words) {
    const list = Array.isArray(words) ? words : [words];
    return el("span", { className: "state state-" + (list[0] || ""), text: list.join("+") });
  }

  function table(headers, rows) {
    const head = el("tr", null, headers.map((h) =>
      el("th", { className: [h.num ? "num" : "", h.wide ? "wide" : ""].join(" ").trim() || null,
                 text: h.label })));
    const body = el("tbody", null, rows.map((cells) => el("tr", null, cells.map((cell, i) => {
      const h = headers[i];
      const className = [h.num ? "num" : "", h.wide ? "wide" : "", h.wrap ? "wrap" : ""]
                            .join(" ").trim() || null;
      return el("td", { className: className },
                [cell instanceof Node ? cell : String(cell === null || cell === undefined ? "" : cell)]);
    }))));
    return el("table", null, [el("thead", null, [head]), body]);
  }

  function card(label, value, sub) {
    return el("div", { className: "card" }, [
      el("div", { className: "label", text: label }),
      el("div", { className: "value", text: value }),
      sub ? el("div", { className: "sub", text: sub }) : null,
    ]);
  }

  function sectionError(container, error) {
    replace(container, el("p", { className: "error", text: error.message || String(error) }));
  }

  // ---------- GPUs in gres strings ----------

  // "gpu:a100:2(S:0-1),shard:(null):1(IDX:0)" -> [{name: "gpu", type: "a100", count: 2},
  // {name: "shard", type: "", count: 1}]
  function gresItems(text) {
    const out = [];
    for (const item of String(text || "").split(",")) {
      const bare = item.trim().replace(/\([^()]*\)$/, "");  // "(IDX:0-1)", "(S:0-1)"
      const parts = bare.split(":");
      if (!parts[0]) continue;
      let type = "", count = 1;
      if (parts.length >= 3) { type = parts[1]; count = Number(parts[2]); }
      else if (parts.length === 2) {
        if (/^\d+$/.test(parts[1])) count = Number(parts[1]); else type = parts[1];
      }
      if (type === "(null)") type = "";
      out.push({ name: parts[0], type: type, count: isFinite(count) ? count : 0 });
    }
    return out;
  }

  // The GPUs of a gres string: [{type: "a100", count: 2}, ...].
  function parseGres(text) {
    return gresItems(text).filter((g) => g.name === "gpu")
      .map((g) => ({ type: g.type, count: g.count }));
  }

  // A node's GPUs with a shard or MPS job on them, from its GresUsed
  // ("gpu:(null):0(IDX:N/A),shard:(null):1(IDX:0)": Slurm counts those GPUs).
  function sharedGpusInUse(text) {
    return gresItems(text).filter((g) => g.name === "shard" || g.name === "mps")
      .reduce((sum, g) => sum + g.count, 0);
  }

  // The shards (or MPS share) of a GPU a job holds or asks for, from its TRES
  // text: {kind: "shard", count: 2}, or null.
  function jobShares(job) {
    const text = job.tres_alloc_str || job.tres_req_str || "";
    const match = /gres\/(shard|mps)=(\d+)/.exec(text);
    return match ? { kind: match[1], count: Number(match[2]) } : null;
  }

  // GPUs a job holds (running) or asks for (otherwise), from its TRES text.
  function jobGpus(job) {
    const text = job.tres_alloc_str || job.tres_req_str || "";
    const match = /gres\/gpu(?::[^=,]*)?=(\d+)/.exec(text);
    return match ? Number(match[1]) : 0;
  }

  // "a100 #0-1" from gres_detail ["gpu:a100:2(IDX:0-1)"]: which GPUs it holds.
  function jobGpuDetail(job) {
    const details = Array.isArray(job.gres_detail) ? job.gres_detail : [];
    return details.map((d) => {
      const index = /\(IDX:([^)]*)\)$/.exec(d);
      if (!index) return "";
      const type = (parseGres(d)[0] || {}).type;
      return (type ? type + " " : "") + "#" + index[1];
    }).filter(Boolean).join(" ");
  }

  // How much of its GPUs a job uses, from /skiff/v1/gpu_usage's GPUs of it:
  // "70% · 6.0/40 GiB" (the GPUs' average utilisation, their memory peaks of
  // their memory), each GPU in the tooltip; "" when none was sampled.
  function gpuUse(gpus) {
    const sampled = (gpus || []).filter((g) => num(g.utilization_average) !== null);
    if (!sampled.length) return null;
    const gib = (bytes) => bytes / (1024 * 1024 * 1024);
    const average = sampled.reduce((s, g) => s + num(g.utilization_average), 0) / sampled.length;
    let text = Math.round(average) + "%";
    const peak = (gpus || []).reduce((s, g) => s + (num(g.memory_peak_bytes) || 0), 0);
    const total = (gpus || []).reduce((s, g) => s + (num(g.memory_total_bytes) || 0), 0);
    if (total) text += " · " + gib(peak).toFixed(1) + "/" + Math.round(gib(total)) + " GiB";
    const title = (gpus || []).map((g) => "GPU " + g.index + " on " + g.node + ": " +
        (num(g.utilization_average) !== null ? num(g.utilization_average) + "% average, " +
         num(g.utilization_peak) + "% peak" : "not sampled") +
        (num(g.memory_total_bytes) ? ", memory " + gib(num(g.memory_peak_bytes) || 0).toFixed(1) +
         " of " + Math.round(gib(num(g.memory_total_bytes))) + " GiB" : "")).join("\n");
    return { text: text, title: title };
  }

  // A job's GPU cell: how many it holds and which, how much it uses them,
  // and GpuIdlePolicy's warning while it stands (a running job's
  // state_description: "GPUs idle: every GPU of the job under 5% since ...").
  function gpuCell(job, gpus) {
    const count = jobGpus(job);
    const shares = count ? null : jobShares(job);
    if (!count && !shares) return "";
    const detail = jobGpuDetail(job);
    // A shared GPU: "2 shards", "mps:50".
    const held = count ? String(count)
        : shares.kind === "shard" ? shares.count + " shard" + (shares.count === 1 ? "" : "s")
        : "mps:" + shares.count;
    const parts = [held + (detail ? " " + detail : "")];
    const use = gpuUse(gpus);
    if (use) parts.push(el("span", { className: "gpu-use", title: use.title, text: " " + use.text }));
    if (stateWord(job.job_state) === "RUNNING" && /^GPUs idle/.test(job.state_description || "")) {
      parts.push(el("span", { className: "gpu-idle", title: job.state_description, text: " idle: warned" }));
    }
    return parts.length === 1 ? parts[0] : el("span", null, parts);
  }

  window.SkiffParts = {
    $, el, replace, num, fmtTime, fmtDuration, fmtNumber, stateWord, stateSpan, table, card,
    sectionError, parseGres, sharedGpusInUse, jobShares, jobGpus, jobGpuDetail, gpuUse, gpuCell,
  };
})();
