'use strict';
/*
 * A synthetic run in the view page's data format (docs/view.md, format
 * version 2), for the parts of the page a real archive cannot reach on
 * demand (a file whose size budget cut detail, a large archive for frame
 * times) and to build a page from page.js/page.css the way `offtrace view`
 * embeds them. The tiles are bucketed as the contract says the C side does:
 * a piece at least one tile column wide is a bar, narrower ones are summed
 * into columns that merge into marks, transfers share an arrow per 6 columns.
 */
const fs = require('fs');
const path = require('path');

const TILE_PX = 1024, ARROW_PX = 6;
const CAT = {TARGET: 0, TARGET_DATA: 1, KERNEL: 3, H2D: 4, D2H: 5, PAR: 8, LOOP: 9, SYNC: 10};
const CLASSES = [
    ['target construct', '#4e79a7'], ['target data region', '#b9d3ee'], ['enter / exit data, update', '#9467bd'],
    ['kernel', '#59a14f'], ['transfer host\u2192device', '#e15759'], ['transfer device\u2192host', '#f28e2b'],
    ['device alloc / delete', '#edc948'], ['omp_target_* call', '#9c755f'],
    ['device teams / parallel / implicit task', '#a8d5cf'], ['device loop / distribute / single', '#2a9d8f'],
    ['device barrier / taskwait', '#ff9da7'], ['device explicit task', '#c85a9e'], ['offtrace: records lost', '#3b3b3b'],
    ['other', '#bab0ac']].map(([name, colour]) => ({name, colour}));

/* iterations: target regions on the host, each with a put, a kernel (device
 * threads: parallel > loop, barrier) and a get. Times in ns. */
function makeRun(iterations, seed, threads) {
    threads = threads || 2;
    let s = seed || 1;
    const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
    const regions = [
        {name: 'target data', site: 'cg.c:40', cat: CAT.TARGET_DATA},
        {name: 'target', site: 'cg.c:52', cat: CAT.TARGET},
        {name: 'data op put', site: 'cg.c:52', cat: CAT.H2D},
        {name: 'data op get', site: 'cg.c:52', cat: CAT.D2H},
        {name: 'spmv_kernel', site: 'cg.c:52', cat: CAT.KERNEL},
        {name: 'parallel', site: 'cg.c:53', cat: CAT.PAR},
        {name: 'loop', site: 'cg.c:54', cat: CAT.LOOP},
        {name: 'barrier', site: 'cg.c:54', cat: CAT.SYNC},
        {name: 'rdma put', site: '', cat: CAT.H2D},
        {name: 'rdma get', site: '', cat: CAT.D2H}];
    const rows = [
        {label: 'Master thread', group: 'host', kind: 'host thread', device: -1, levels: 3},
        {label: 'kernel stream 0', group: 'device 0', kind: 'kernel stream', device: 0, levels: 1}];
    for (let n = 0; n < threads; n++) rows.push({label: 'device thread ' + n, group: 'device 0', kind: 'device thread', device: 0, levels: 2});
    const rdma = rows.length;
    rows.push({label: 'RDMA', group: 'device 0', kind: 'RDMA', device: 0, levels: 1});
    const pieces = [], transfers = [], memory = [];
    let id = 0, t = 1000;
    const add = (row, level, start, dur, region, bytes, parent) => {
        pieces.push({row, level, a: start, b: start + dur, start, dur, region, bytes, id: id++, parent});
    };
    const dataStart = t;
    let mem = 0;
    memory.push([0, 0, 0]);
    for (let i = 0; i < iterations; i++) {
        const tStart = t, put = 300 + Math.floor(rnd() * 200), k = 2000 + Math.floor(rnd() * 20000);
        const get = 250 + Math.floor(rnd() * 100);
        add(0, 2, t + 100, put, 2, 8192, 1);
        transfers.push({t0: t + 150, t1: t + 100 + put, bytes: 8192, to_device: 1});
        add(rdma, 0, t + 150, put - 50, 8, 8192, -1);
        mem += 8192; memory.push([0, t + 150, mem]);
        const k0 = t + 200 + put;
        add(1, 0, k0, k, 4, 0, -1);
        for (let dt = 2; dt < rdma; dt++) {
            const p0 = k0 + 20, p1 = k0 + k - 20, l1 = p0 + Math.floor((p1 - p0) * (0.6 + 0.35 * rnd()));
            add(dt, 0, p0, p1 - p0, 5, 0, -1);
            add(dt, 1, p0 + 5, l1 - p0 - 5, 6, 0, 5);
            add(dt, 1, l1, p1 - l1 - 5, 7, 0, 5);
        }
        const g0 = k0 + k + 100;
        add(0, 2, g0, get, 3, 8, 1);
        transfers.push({t0: g0 + 20, t1: g0 + get - 10, bytes: 8, to_device: 0});
        add(rdma, 0, g0 + 20, get - 30, 9, 8, -1);
        mem -= 8192; memory.push([0, g0 + get, mem]);
        t = g0 + get + 200;
        add(0, 1, tStart, t - tStart, 1, 0, 0);
        t += 50 + Math.floor(rnd() * 400);
    }
    add(0, 0, dataStart - 500, t - dataStart + 1000, 0, 0, -1);
    const duration = t + 2000;
    /* the target data region encloses: move it first so ids stay in start order is not needed */
    return {rows, regions, pieces, transfers, memory, duration, rdma, events: pieces.length * 2 + transfers.length * 2};
}

/* The pieces that may overlap [s, e): the long ones, and the short ones by binary search on the start. */
const LONG_NS = 1e6;
function index(run) {
    if (run.index) return run.index;
    const short = run.pieces.filter((p) => p.b - p.a <= LONG_NS).sort((x, y) => x.a - y.a);
    const long = run.pieces.filter((p) => p.b - p.a > LONG_NS);
    return (run.index = {short, long});
}
function piecesIn(run, s, e) {
    const {short, long} = index(run), out = long.filter((p) => p.b >= s && p.a < e);
    let lo = 0, hi = short.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (short[m].a < s - LONG_NS) lo = m + 1; else hi = m; }
    for (let n = lo; n < short.length && short[n].a < e; n++) if (short[n].b >= s) out.push(short[n]);
    return out;
}

function bucket(run, k, i) {
    const D = run.duration, span = D / Math.pow(2, k), s = i * span, e = s + span, col = span / TILE_PX;
    const bars = [], marks = [], arrows = [], memory = [];
    const cells = new Map(); /* row/level -> array of {ns by cat, count, bytes, last} */
    for (const p of piecesIn(run, s, e)) {
        if (p.b < s || p.a >= e) continue;
        const ca = Math.max(p.a, s), cb = Math.min(p.b, e);
        if ((cb - ca) / col >= 1 || (p.b - p.a) / col >= 1) {
            bars.push([p.row, p.level, p.a, p.b, p.start, p.dur, p.region, p.bytes, p.id, p.parent]);
            continue;
        }
        const key = p.row * 8 + p.level;
        if (!cells.has(key)) cells.set(key, []);
        const cl = cells.get(key), x0 = (ca - s) / col, x1 = (cb - s) / col, cat = run.regions[p.region].cat;
        for (let c = Math.floor(x0); c <= Math.min(TILE_PX - 1, Math.floor(x1)); c++) {
            const ov = Math.min(x1, c + 1) - Math.max(x0, c);
            if (!cl[c]) cl[c] = {ns: {}, count: 0, bytes: 0, last: cat};
            if (ov > 0) cl[c].ns[cat] = (cl[c].ns[cat] || 0) + ov * col;
        }
        const c0 = Math.min(TILE_PX - 1, Math.floor(x0));
        if (!cl[c0]) cl[c0] = {ns: {}, count: 0, bytes: 0, last: cat};
        cl[c0].count++; cl[c0].bytes += p.bytes; cl[c0].last = cat;
    }
    for (const [key, cl] of cells) {
        const row = Math.floor(key / 8), level = key % 8;
        const lead = (c) => { let best = c.last, bn = -1; for (const k2 in c.ns) if (c.ns[k2] > bn) { bn = c.ns[k2]; best = +k2; } return best; };
        const cover = (c) => { let n = 0; for (const k2 in c.ns) n += c.ns[k2]; const sh = n / col; return sh < 0.25 ? 1 : sh < 0.5 ? 2 : sh < 0.75 ? 3 : 4; };
        for (let c = 0; c < TILE_PX; c++) {
            if (!cl[c]) continue;
            const cat = lead(cl[c]), cv = cover(cl[c]);
            let c1 = c, count = 0, ns = 0, bytes = 0;
            const by = {};
            while (c1 < TILE_PX && cl[c1] && lead(cl[c1]) === cat && cover(cl[c1]) === cv) {
                count += cl[c1].count; bytes += cl[c1].bytes;
                for (const k2 in cl[c1].ns) { ns += cl[c1].ns[k2]; by[k2] = (by[k2] || 0) + cl[c1].ns[k2]; }
                c1++;
            }
            const top = Object.keys(by).map((k2) => [+k2, Math.round(by[k2])]).sort((x, y) => y[1] - x[1]).slice(0, 3);
            marks.push([row, level, c, c1 - 1, cat, cv, count, Math.round(ns), bytes, top]);
            c = c1 - 1;
        }
    }
    const flows = new Map();
    let t0i = 0, t0h = run.transfers.length;
    while (t0i < t0h) { const m = (t0i + t0h) >> 1; if (run.transfers[m].t0 < s - LONG_NS) t0i = m + 1; else t0h = m; }
    for (let n = t0i; n < run.transfers.length && run.transfers[n].t0 < e; n++) {
        const x = run.transfers[n];
        if (x.t1 < s || x.t0 >= e) continue;
        const c = Math.max(0, Math.min(TILE_PX - 1, Math.floor((x.t0 - s) / col)));
        const key = x.to_device + '/' + Math.floor(c / ARROW_PX);
        let a = flows.get(key);
        if (!a) flows.set(key, a = [0, run.rdma, x.to_device, 0, 0, x.t0, x.t1, 0, 0]);
        a[3]++; a[4] += x.bytes; a[7] = Math.max(a[7], x.t1); a[8] += x.t1 - x.t0;
    }
    for (const a of flows.values()) arrows.push(a);
    let before = null, mi = 0, mh = run.memory.length;
    while (mi < mh) { const m = (mi + mh) >> 1; if (run.memory[m][1] < s) mi = m + 1; else mh = m; }
    if (mi > 0) before = run.memory[mi - 1];
    const perCol = new Map();
    for (const m of run.memory.slice(mi)) {
        if (m[1] < s) { before = m; continue; }
        if (m[1] >= e) break;
        const c = Math.floor((m[1] - s) / col);
        if (!perCol.has(c)) perCol.set(c, []);
        perCol.get(c).push(m);
    }
    if (before) memory.push([0, s, before[2]]);
    for (const list of perCol.values()) {
        if (list.length <= 2) { memory.push(...list); continue; }
        let lo = list[0], hi = list[0];
        for (const m of list) { if (m[2] < lo[2]) lo = m; if (m[2] > hi[2]) hi = m; }
        memory.push(...(lo[1] <= hi[1] ? [lo, hi] : [hi, lo]));
    }
    bars.sort((x, y) => x[2] - y[2]);
    const exact = marks.length === 0 && arrows.every((a) => a[3] === 1);
    const empty = bars.length + marks.length + arrows.length + memory.length === 0;
    return {k, i, exact, bars, marks, arrows, memory, empty};
}

/* Levels 0, 1, ... of the tiles that exist (children of non-exact tiles with
 * content), while the JSON stays under budget bytes and k <= maxLevel. */
function makeData(run, opts) {
    const tiles = {};
    let size = 0, complete = true, frontier = [[0, 0]];
    const budget = opts.budget || 32 << 20, maxLevel = opts.maxLevel === undefined ? 40 : opts.maxLevel;
    for (let k = 0; frontier.length; k++) {
        const next = [];
        for (const [k2, i] of frontier) {
            const t = bucket(run, k2, i);
            if (t.empty && k2 > 0) continue;
            delete t.empty;
            const n = JSON.stringify(t).length;
            if (size + n > budget || k2 > maxLevel) { complete = false; continue; }
            size += n;
            tiles[k2 + '/' + i] = t;
            if (!t.exact) next.push([k2 + 1, 2 * i], [k2 + 1, 2 * i + 1]);
        }
        frontier = next;
    }
    return {
        format: 'offtrace-view', version: 2, title: opts.title || 'fixture', duration: run.duration,
        events: run.events, tile_px: TILE_PX, depth: 4, serve: !!opts.serve, complete: opts.serve ? true : complete,
        archive: '/tmp/' + (opts.title || 'fixture'), rows: run.rows, classes: CLASSES,
        regions: run.regions, counters: [{name: 'device 0 memory in use', device: 0, row: run.rdma, max: 8192}], tiles,
    };
}

/* The page as `offtrace view` writes it (timeline-contract.md). */
function page(data) {
    const dir = path.join(__dirname, '..', '..', 'host', 'analysis', 'view_page');
    const css = fs.readFileSync(path.join(dir, 'page.css'), 'utf8');
    const js = fs.readFileSync(path.join(dir, 'page.js'), 'utf8');
    return '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>offtrace view: ' + data.title +
        '</title>\n<style>\n' + css + '</style>\n</head>\n<body>\n<div id="ot-app"></div>\n' +
        '<script id="ot-data" type="application/json">' + JSON.stringify(data).replace(/<\//g, '<\\/') +
        '</script>\n<script>\n' + js + '</script>\n</body>\n</html>\n';
}

module.exports = {makeRun, makeData, bucket, page, TILE_PX};
