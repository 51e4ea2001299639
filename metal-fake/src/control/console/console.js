// metal-fake's console: reads and drives the control API (/_fake/...) of
// the fake that serves it, and nothing else. Every text from the fake goes
// into the page as text (textContent), never as markup.
"use strict";

(() => {
  const token = new URLSearchParams(location.search).get("token");
  const CALLS_MS = 1000; // how often new calls are asked for
  const WORLD_MS = 2000; // how often the world, faults and clock are read
  const KEPT = 2000; // calls the page keeps
  const SHOWN = 300; // calls shown at once (the newest that pass the filters)
  const PER_POLL = 1000; // the most new calls one poll reads (a flood shows its newest)
  const PER_LIST = 200; // records shown of one kind in one project

  const $ = (id) => document.getElementById(id);

  // An element: `attrs` set as attributes (class, data-*, href, ...), then
  // the children (strings become text).
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  // A control call: the reply's JSON, or an Error with the fake's message.
  async function api(method, path, body) {
    const headers = {};
    if (token !== null) headers["X-Fake-Control-Token"] = token;
    const init = { method, headers, cache: "no-store" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const resp = await fetch(path, init);
    const text = await resp.text();
    let json = null;
    try { json = JSON.parse(text); } catch (_) { /* not JSON */ }
    if (!resp.ok) {
      const why = json && (json.errors ? json.errors.join("; ") : json.error);
      throw new Error(`${method} ${path}: ${resp.status} ${why || text}`);
    }
    return json;
  }

  function status(text, error) {
    const s = $("status");
    s.textContent = text;
    s.classList.toggle("error", !!error);
  }

  // ---- calls ----
  let calls = []; // newest first
  let since = 0;
  let resets = null;
  const open = new Set();
  const bodies = new Map();
  const seenOps = new Set();

  const failed = (c) => c.status === null || c.status >= 400;
  const clockTime = (at) => (at || "").slice(11, 23); // HH:MM:SS.mmm of the fake's clock

  function passes(c) {
    const op = $("f-op").value.trim();
    if (op && c.operation !== op) return false;
    const st = $("f-status").value;
    if (st === "failed" && !failed(c)) return false;
    if (st === "none" && c.status !== null) return false;
    if (/^[245]$/.test(st) && !(c.status !== null && String(c.status)[0] === st)) return false;
    const text = $("f-text").value.trim().toLowerCase();
    if (text) {
      const hay = [c.method, c.path, c.query, c.operation, c.status, c.error, c.fault].join(" ").toLowerCase();
      if (!hay.includes(text)) return false;
    }
    return true;
  }

  function pretty(text) {
    if (text === null || text === undefined) return null;
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (_) { return text; }
  }

  function detailRow(c) {
    const d = bodies.get(c.seq);
    let inner;
    if (!d) {
      inner = el("p", { class: "dim" }, "loading…");
    } else if (d.unreadable) {
      inner = el("p", { class: "dim" }, d.unreadable);
    } else {
      const part = (title, text) => el("div", {},
        el("h4", {}, title),
        text === null ? el("p", { class: "dim" }, d.bodies_kept ? "no body" : "not kept (older than the newest 1000 calls)") : el("pre", {}, pretty(text)));
      inner = el("div", { class: "bodies" }, part("request", d.request_body), part("reply", d.reply_body));
    }
    return el("tr", { class: "detail", "data-seq": c.seq }, el("td", { colspan: 7 }, inner));
  }

  function renderCalls() {
    const rows = [];
    let shown = 0;
    for (const c of calls) {
      if (!passes(c)) continue;
      if (++shown > SHOWN) break;
      const cls = ["call", failed(c) ? "failed" : "ok", open.has(c.seq) ? "open" : ""].join(" ").trim();
      rows.push(el("tr", { class: cls, "data-seq": c.seq, "data-operation": c.operation, title: "show the request and reply bodies" },
        el("td", { class: "seq" }, c.seq),
        el("td", { class: "at", title: c.at }, clockTime(c.at)),
        el("td", { class: "method" }, c.method),
        el("td", { class: "path" }, c.path + (c.query ? "?" + c.query : "")),
        el("td", { class: "op" }, c.operation),
        el("td", { class: "status" }, c.status === null ? "no reply" : c.status, c.fault ? el("span", { class: "fault-tag" }, c.fault) : null),
        el("td", { class: "error" }, c.error || "")));
      if (open.has(c.seq)) rows.push(detailRow(c));
    }
    $("calls-body").replaceChildren(...rows);
    $("calls-empty").hidden = calls.length > 0;
    const nFailed = calls.filter(failed).length;
    $("calls-count").textContent = `${calls.length} kept, ${nFailed} failed` + (shown > SHOWN ? `, newest ${SHOWN} shown` : "");
    const ops = $("ops");
    if (ops.children.length !== seenOps.size) {
      ops.replaceChildren(...[...seenOps].sort().map((o) => el("option", { value: o })));
    }
  }

  async function pollCalls() {
    const r = await api("GET", `/_fake/calls?since=${since}&limit=${since ? PER_POLL : SHOWN}`);
    if (resets !== null && (r.resets !== resets || r.last_seq < since)) {
      // The log was emptied (a reset): start over.
      calls = []; since = 0; open.clear(); bodies.clear();
      resets = r.resets;
      renderCalls();
      return pollCalls();
    }
    resets = r.resets;
    if (r.calls.length) {
      for (const c of r.calls) { calls.unshift(c); seenOps.add(c.operation); }
      if (calls.length > KEPT) calls.length = KEPT;
      renderCalls();
    }
    since = r.last_seq;
  }

  async function toggle(seq) {
    if (open.has(seq)) { open.delete(seq); renderCalls(); return; }
    open.add(seq);
    renderCalls();
    if (!bodies.has(seq)) {
      try { bodies.set(seq, await api("GET", `/_fake/calls/${seq}`)); }
      catch (e) { bodies.set(seq, { unreadable: e.message }); }
      renderCalls();
    }
  }

  // ---- world ----
  const link = (id, text) => el("a", { href: "#r-" + id }, text);
  const idOf = (href) => (href || "").split("/").pop();
  const short = (id) => String(id || "").slice(0, 8);
  const badge = (s) => el("span", { class: `state state-${s}` }, s);

  function records(title, kind, list, head, row) {
    if (!list.length) return null;
    const rows = list.slice(0, PER_LIST).map((r) => {
      const tr = el("tr", { id: "r-" + r.id, class: kind, "data-id": r.id });
      tr.append(...row(r).map((c) => (c instanceof Node && c.tagName === "TD" ? c : el("td", {}, c))));
      return tr;
    });
    if (list.length > PER_LIST) rows.push(el("tr", {}, el("td", { class: "more", colspan: head.length }, `… and ${list.length - PER_LIST} more`)));
    return el("div", { class: "kind-" + kind },
      el("h4", {}, `${title} (${list.length})`),
      el("table", { class: "records" }, el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))), el("tbody", {}, rows)));
  }

  const by = (list, key) => {
    const m = new Map();
    for (const r of list || []) {
      const k = key(r);
      if (!m.has(k)) m.set(k, []);
      m.get(k).push(r);
    }
    return m;
  };

  function renderWorld(w, devices) {
    const metroOf = new Map((w.facilities || []).map((f) => [f.code, f.metro]));
    const vlans = new Map((w.virtual_networks || []).map((v) => [v.id, v]));
    const ipres = new Map((w.ip_reservations || []).map((r) => [r.id, r]));
    const vlanLink = (id) => (vlans.has(id) ? link(id, `vlan ${vlans.get(id).vxlan}`) : link(id, short(id)));
    const devicesBy = by(devices, (d) => d.project && d.project.id);
    const reservationsBy = by(w.reservations, (r) => r.project);
    const vlansBy = by(w.virtual_networks, (v) => v.project);
    const gatewaysBy = by(w.metal_gateways, (g) => g.project);
    const vrfsBy = by(w.vrfs, (v) => v.project);
    const connsBy = by(w.interconnections, (c) => c.project || "org:" + c.organization);
    const circuitsBy = by(w.virtual_circuits, (c) => c.interconnection);
    const keysBy = by(w.ssh_keys, (k) => k.project || "user");
    const deviceOn = new Map((devices || [])
      .filter((d) => d.hardware_reservation && d.hardware_reservation.id)
      .map((d) => [d.hardware_reservation.id, d]));

    const deviceCard = (d) => {
      const addrs = (d.ip_addresses || []).map((a) => `${a.address}/${a.cidr}`).join("  ");
      const ports = (d.network_ports || []).map((p) => el("span", { class: "port" }, p.name,
        ...(p.virtual_networks || []).map((v) => [" ", vlanLink(idOf(v.href) || v.id)])));
      const res = d.hardware_reservation && d.hardware_reservation.id;
      return el("div", { class: "device", id: "r-" + d.id, "data-id": d.id },
        el("div", { class: "line" },
          el("strong", { class: "hostname" }, d.hostname || short(d.id)), " ",
          el("span", { class: "id", title: d.id }, short(d.id)), " ",
          badge(d.state), " ",
          el("span", { class: "plan" }, (d.plan && d.plan.slug) || ""), " · ",
          el("span", { class: "metro" }, (d.metro && d.metro.code) || ""),
          res ? [" · reservation ", link(res, short(res))] : null),
        el("div", { class: "line addr" }, addrs || "no addresses yet"),
        el("div", { class: "line addr" }, ports));
    };
    const deviceList = (list) => !list.length ? null : el("div", { class: "kind-device" },
      el("h4", {}, `Devices (${list.length})`),
      list.slice(0, PER_LIST).map(deviceCard),
      list.length > PER_LIST ? el("p", { class: "more" }, `… and ${list.length - PER_LIST} more`) : null);
    const connTable = (list) => records("Connections", "connection", list, ["name", "type", "metro", "speed", "status", "circuits"], (c) => [
      c.name, `${c.type} ${c.redundancy || ""}`, c.metro, c.speed ? `${c.speed / 1e9} Gbps` : "", c.status ? badge(c.status) : "",
      el("td", {}, (circuitsBy.get(c.id) || []).map((vc) => el("div", { id: "r-" + vc.id }, short(vc.id), " ", vc.virtual_network ? vlanLink(vc.virtual_network) : vc.vnid ? `vnid ${vc.vnid}` : "", " ", vc.status ? badge(vc.status) : ""))),
    ]);

    const projectsBy = by(w.projects, (p) => p.organization);
    const sections = (w.organizations || []).map((o) => el("section", { class: "org", id: "r-" + o.id, "data-id": o.id },
      el("h3", {}, o.name, " ", el("span", { class: "id" }, o.id)),
      connTable(connsBy.get("org:" + o.id) || []),
      (projectsBy.get(o.id) || []).map((p) => el("section", { class: "project", id: "r-" + p.id, "data-id": p.id },
        el("h3", {}, "project ", p.name, " ", el("span", { class: "id" }, p.id)),
        deviceList(devicesBy.get(p.id) || []),
        records("Reservations", "reservation", reservationsBy.get(p.id) || [], ["id", "plan", "metro", "device"], (r) => [
          el("span", { class: "id" }, short(r.id)), r.plan, metroOf.get(r.facility) || r.facility || "",
          deviceOn.has(r.id) ? link(deviceOn.get(r.id).id, deviceOn.get(r.id).hostname || short(deviceOn.get(r.id).id)) : "free"]),
        records("VLANs", "vlan", vlansBy.get(p.id) || [], ["vxlan", "metro", "description"], (v) => [
          el("strong", {}, v.vxlan), v.metro || metroOf.get(v.facility) || "", v.description || ""]),
        records("Gateways", "gateway", gatewaysBy.get(p.id) || [], ["id", "VLAN", "block"], (g) => {
          const block = g.ip_reservation && ipres.get(g.ip_reservation);
          return [el("span", { class: "id" }, short(g.id)), g.virtual_network ? vlanLink(g.virtual_network) : "",
            block ? `${block.network}/${block.cidr}` : g.vrf ? link(g.vrf, "vrf") : ""];
        }),
        records("VRFs", "vrf", vrfsBy.get(p.id) || [], ["name", "metro", "ranges", "ASN"], (v) => [
          el("strong", {}, v.name), v.metro, (v.ip_ranges || []).join(" "), v.local_asn ?? ""]),
        connTable(connsBy.get(p.id) || []),
        records("SSH keys", "ssh_key", keysBy.get(p.id) || [], ["label", "key"], (k) => [
          k.label, el("td", { class: "addr" }, (k.key || "").slice(0, 40) + "…")])))));
    const userKeys = keysBy.get("user") || [];
    if (userKeys.length) {
      sections.push(el("section", { class: "user" }, el("h3", {}, "user"),
        records("SSH keys", "ssh_key", userKeys, ["label", "key"], (k) => [k.label, el("td", { class: "addr" }, (k.key || "").slice(0, 40) + "…")])));
    }
    $("world").replaceChildren(...sections);
    $("world-count").textContent = `${(w.projects || []).length} projects, ${(devices || []).length} devices, ${(w.reservations || []).length} reservations`;
  }

  function faultText(f) {
    const param = f.status ?? f.seconds ?? f.retry_after_seconds;
    return `${f.operation || "any"} → ${f.kind}${param !== undefined ? " " + param : ""}` +
      ` ×${f.times}${f.nth ? ` (call ${f.nth})` : ""}${f.target ? ` on ${short(f.target)}` : ""}`;
  }

  function renderFaults(r) {
    $("faults").replaceChildren(...(r.faults.length
      ? r.faults.map((f) => el("li", {}, faultText(f)))
      : [el("li", { class: "none" }, "no scripted faults armed")]));
    $("random").textContent = r.random
      ? `random: rate ${r.random.rate}, kinds ${r.random.kinds.map((k) => k.kind).join(", ")}`
      : "random: off";
  }

  function renderClock(c) {
    $("now").textContent = c.now.slice(0, 19).replace("T", " ");
    $("now").setAttribute("datetime", c.now);
    const adv = c.advanced_seconds ? `+${Math.round(c.advanced_seconds)} s advanced` : "";
    $("advanced").textContent = adv + (c.time_scale !== 1 ? ` ×${c.time_scale}` : "");
  }

  let lastWorld = "";
  async function pollWorld() {
    const [w, devices, faults, clock] = await Promise.all([
      api("GET", "/_fake/world"), api("GET", "/_fake/devices"), api("GET", "/_fake/faults"), api("GET", "/_fake/clock")]);
    renderClock(clock);
    renderFaults(faults);
    const key = JSON.stringify([w, devices]);
    if (key !== lastWorld) {
      lastWorld = key;
      renderWorld(w, devices);
    }
  }

  // ---- actions ----
  async function act(what) {
    try {
      await what();
      await refresh();
    } catch (e) {
      status(e.message, true);
    }
  }

  let busy = false;
  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      await Promise.all([pollCalls(), pollWorld()]);
      status(`updated ${new Date().toLocaleTimeString()}`, false);
    } catch (e) {
      status(e.message, true);
    } finally {
      busy = false;
    }
  }

  function wire() {
    $("calls-body").addEventListener("click", (e) => {
      const tr = e.target.closest("tr.call");
      if (tr) toggle(Number(tr.dataset.seq));
    });
    for (const id of ["f-op", "f-status", "f-text"]) $(id).addEventListener("input", renderCalls);
    $("filters").addEventListener("submit", (e) => e.preventDefault());
    $("advance").addEventListener("click", () => act(() => api("POST", "/_fake/clock", { advance_seconds: Number($("step").value) })));
    $("reset").addEventListener("click", () => {
      if (confirm("Reset the fake: the seeded world and faults, an empty call log?")) act(() => api("POST", "/_fake/reset"));
    });
    $("clear-faults").addEventListener("click", () => act(() => api("DELETE", "/_fake/faults")));
    const paramOf = { fail_before: "status", fail_after: "status", throttle: "retry_after_seconds", latency: "seconds" };
    $("arm-kind").addEventListener("change", () => {
      const p = paramOf[$("arm-kind").value];
      $("arm-param").disabled = !p;
      $("arm-param").title = p || "";
      $("arm-param").setAttribute("aria-label", p || "no parameter");
    });
    $("arm").addEventListener("submit", (e) => {
      e.preventDefault();
      const kind = $("arm-kind").value;
      const fault = { kind, times: Number($("arm-times").value) || 1 };
      const op = $("arm-op").value.trim();
      if (op) fault.operation = op;
      if (paramOf[kind]) fault[paramOf[kind]] = Number($("arm-param").value);
      act(() => api("POST", "/_fake/faults", { faults: [fault] }));
    });
    $("random-form").addEventListener("submit", (e) => {
      e.preventDefault();
      act(() => api("POST", "/_fake/faults", { random: { rate: Number($("random-rate").value) } }));
    });
  }

  wire();
  refresh();
  let tick = 0;
  setInterval(() => {
    if (document.hidden || busy) return;
    tick += CALLS_MS;
    if (tick % WORLD_MS === 0) { refresh(); return; }
    busy = true;
    pollCalls().then(() => status(`updated ${new Date().toLocaleTimeString()}`, false), (e) => status(e.message, true))
      .finally(() => { busy = false; });
  }, CALLS_MS);
})();
