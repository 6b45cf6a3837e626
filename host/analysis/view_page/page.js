/*
 * The timeline page of `offtrace view` (docs/view.md, "The HTML page").
 *
 * It draws the trace from the tiles in <script id="ot-data"> (format
 * "offtrace-view" version 2, host/analysis/view_page and the C writer): at
 * every frame it picks the coarsest level whose tile column is at most one
 * screen pixel, draws the tiles that cover the visible range (or their
 * nearest ancestor there is) and, with `--serve`, fetches the missing ones.
 *
 * Bars, merged marks, arrows and the memory tracks go on one canvas: a frame
 * may hold tens of thousands of them and a canvas draws them in a few
 * milliseconds where as many SVG elements take a second (measured, see the
 * docs). Everything a person reads (heading, axis, row labels, the labels in
 * the bars, the details panel, the legend) is HTML over the canvas, so it can
 * be selected, copied and found.
 *
 * Plain script, no library, nothing loaded from elsewhere: the page works
 * offline and as a mail attachment.
 */
(function () {
    'use strict';

    /* An icon of its own, so that a browser does not ask the server for /favicon.ico (a 404 there is a
     * console error); the writer's <head> may already have one. */
    if (!document.querySelector('link[rel~="icon"]')) {
        var icon = document.createElement('link');
        icon.rel = 'icon';
        icon.href = 'data:,';
        document.head.appendChild(icon);
    }

    var data = JSON.parse(document.getElementById('ot-data').textContent);
    var app = document.getElementById('ot-app');

    /* Layout (CSS px). Levels are tall enough for a label in the bar. */
    var LABEL_W = 210, AXIS_H = 28, GROUP_H = 20, LEVEL_H = 17, SINGLE_H = 22, ROW_GAP = 3, COUNTER_H = 36;
    var MARK_SHARE = 0.7;          /* a merged mark's height, as a share of a bar's (a bar is one region, a mark many) */
    var MIN_LABEL_PX = 26;         /* narrower bars get no label */
    var MIN_SPAN_NS = 50;          /* deepest zoom: 50 ns across the plot */
    var MARK_ALPHA = [0.45, 0.6, 0.8, 1];
    /* by an arrow's kind (its third field): device->host, host->device, MPI message (view_classes.c) */
    var ARROW_COLOUR = ['#c4650a', '#b8282b', '#1a1a1a'];
    var MESSAGE = 2;
    var CAT_TARGET = 0, CAT_KERNEL = 3, CAT_H2D = 4, CAT_D2H = 5;  /* ot_view_cat order */
    var MAX_FETCHES = 8;

    var D = Math.max(1, data.duration), TILE_PX = data.tile_px || 1024;
    var tiles = data.tiles || {};
    var absent = {}, pending = {}, nPending = 0;

    /* ---- formatting ---- */

    function fmtBytes(n) {
        if (n < 1024) return n + (n === 1 ? ' byte' : ' bytes');
        var u = ['KiB', 'MiB', 'GiB', 'TiB'], v = n / 1024, i = 0;
        while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
        return v.toFixed(2) + ' ' + u[i];
    }
    function unitOf(ns) {
        return ns >= 1e9 ? [1e9, 's'] : ns >= 1e6 ? [1e6, 'ms'] : ns >= 1e3 ? [1e3, '\u00b5s'] : [1, 'ns'];
    }
    /* A duration to about four significant digits ("12.35 µs"). */
    function fmtDur(ns) {
        if (ns < 1000) return Math.round(ns) + ' ns';
        var u = unitOf(ns), v = ns / u[0];
        return v.toFixed(v >= 100 ? 1 : v >= 10 ? 2 : 3) + ' ' + u[1];
    }
    /* A duration exactly, with the nanoseconds: "1.234567 ms (1234567 ns)". */
    function fmtExact(ns) {
        ns = Math.round(ns);
        if (ns < 1000) return ns + ' ns';
        var u = unitOf(ns), dec = Math.round(Math.log10(u[0]));
        return (ns / u[0]).toFixed(dec) + ' ' + u[1] + ' (' + ns + ' ns)';
    }
    /* A time from the trace start, precise enough to tell apart times \p res ns apart. */
    function fmtTime(t, res) {
        if (t <= 0) return '0';
        var u = unitOf(t), dec = Math.max(0, Math.min(9, Math.ceil(Math.log10(u[0] / Math.max(res, 1)))));
        return (t / u[0]).toFixed(dec) + ' ' + u[1];
    }
    function fmtRate(bytes, ns) {
        if (ns <= 0) return '';
        var bps = bytes / (ns / 1e9);
        return bps >= 1e9 ? (bps / 1e9).toFixed(2) + ' GB/s' : bps >= 1e6 ? (bps / 1e6).toFixed(2) + ' MB/s' :
            (bps / 1e3).toFixed(2) + ' kB/s';
    }
    function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many || one + 's'); }

    /* ---- DOM helpers ---- */

    function el(tag, cls, text) {
        var e = document.createElement(tag);
        if (cls) e.className = cls;
        if (text !== undefined && text !== null) e.textContent = text;
        return e;
    }
    function add(parent, tag, cls, text) { var e = el(tag, cls, text); parent.appendChild(e); return e; }

    /* ---- the page's frame ---- */

    var head = add(app, 'header', 'ot-head');
    var title = add(head, 'h1', 'ot-title');
    add(title, 'span', 'ot-name', data.title);
    add(title, 'span', 'ot-sub', ' \u2014 ' + fmtDur(data.duration) + ', ' + data.events + ' events, ' +
        plural(data.rows.length, 'location'));
    var rangeLine = add(head, 'div', 'ot-range');
    rangeLine.id = 'ot-range';
    var statusLine = add(head, 'div', 'ot-status');
    statusLine.id = 'ot-status';
    var note = add(head, 'div', 'ot-note');
    note.id = 'ot-note';
    var budgetNote = add(head, 'div', 'ot-budget');
    budgetNote.id = 'ot-budget';
    if (!data.complete && !data.serve) {
        budgetNote.textContent = 'This file holds detail only down to where its size budget ran out; ' +
            '"offtrace view ' + data.archive + ' --serve" has all of it.';
    }

    var tools = add(app, 'div', 'ot-tools');
    function button(text, titleText, fn) {
        var b = add(tools, 'button', '', text);
        b.type = 'button';
        b.title = titleText;
        b.addEventListener('click', fn);
        return b;
    }
    button('\u2212', 'zoom out (key -)', function () { zoomBy(1.6, null); });
    button('+', 'zoom in (key +)', function () { zoomBy(1 / 1.6, null); });
    button('whole run', 'back to the whole run (key 0, or double-click)', function () { reset(); });
    add(tools, 'label', 'ot-tool-label', 'arrows ');
    var arrowMode = add(tools, 'select', '');
    arrowMode.id = 'ot-arrows';
    arrowMode.title = 'transfer and MPI message arrows: all, only those of the selected item or range, none';
    ['all', 'selection', 'none'].forEach(function (m) { add(arrowMode, 'option', '', m).value = m; });
    arrowMode.addEventListener('change', function () { later(); });
    var showAll = button('show all rows', 'show the rows hidden with \u00d7', function () { hidden = {}; relayout(); });
    showAll.id = 'ot-showall';
    add(tools, 'span', 'ot-hint', 'wheel: zoom \u00b7 drag: pan \u00b7 shift-drag or drag on the axis: statistics of a ' +
        'range \u00b7 click: details \u00b7 double-click or 0: whole run \u00b7 keys + - \u2190 \u2192');

    var main = add(app, 'div', 'ot-main');
    var timeline = add(main, 'div', 'ot-timeline');
    var axis = add(timeline, 'div', 'ot-axis');
    axis.id = 'ot-axis';
    axis.style.height = AXIS_H + 'px';
    var body = add(timeline, 'div', 'ot-body');
    var rowLabels = add(body, 'div', 'ot-rowlabels');
    rowLabels.id = 'ot-rowlabels';
    rowLabels.style.width = LABEL_W + 'px';
    var canvas = add(body, 'canvas', 'ot-canvas');
    canvas.style.left = LABEL_W + 'px';
    var barLabels = add(body, 'div', 'ot-labels');
    barLabels.id = 'ot-labels';
    barLabels.style.left = LABEL_W + 'px';
    var panel = add(main, 'aside', 'ot-panel');
    panel.id = 'ot-panel';
    add(panel, 'p', 'ot-empty', 'Click a bar, a mark or an arrow for its details; shift-drag over the rows (or drag ' +
        'on the axis) for the statistics of a time range.');
    var legend = add(app, 'div', 'ot-legend');
    legend.id = 'ot-legend';
    var tip = add(document.body, 'div', 'ot-tip');
    tip.id = 'ot-tip';
    var ctx = canvas.getContext('2d');
    var labelFont = '11px ' + getComputedStyle(body).fontFamily;   /* as .ot-bar-label, to measure labels */

    /* ---- legend ---- */

    (function () {
        var used = {};
        data.regions.forEach(function (r) { used[r.cat] = true; });
        data.classes.forEach(function (c, i) {
            if (!used[i]) return;
            var item = add(legend, 'span', 'ot-legend-item');
            add(item, 'span', 'ot-swatch').style.background = c.colour;
            item.appendChild(document.createTextNode(c.name));
        });
        ['device\u2192host transfer', 'host\u2192device transfer', 'MPI message, send \u2192 receive']
            .forEach(function (name, kind) {
                if (kind === MESSAGE && !data.messages) return;   /* an MPI job's archive (issue 16) */
                var item = add(legend, 'span', 'ot-legend-item');
                add(item, 'span', 'ot-swatch ot-swatch-arrow').style.background = ARROW_COLOUR[kind];
                item.appendChild(document.createTextNode(name));
            });
        var m = add(legend, 'span', 'ot-legend-item');
        add(m, 'span', 'ot-swatch ot-swatch-mark');
        m.appendChild(document.createTextNode('lower, paler bars: regions narrower than a pixel, merged (paler: ' +
            'they cover less of the time)'));
    })();

    /* ---- rows: layout ---- */

    var hidden = {};
    var rowY = [], rowH = [], rowLH = [], counterY = [], bodyH = 0;

    function levelsOf(r) { return Math.max(1, r.levels || 1); }

    /* Where each visible row, group heading and memory track goes. */
    function relayout() {
        rowLabels.textContent = '';
        rowY = []; rowH = []; rowLH = []; counterY = [];
        var y = 0, group = null, nHidden = 0;
        var countersAfter = {};
        (data.counters || []).forEach(function (c, ci) {
            var at = c.row;
            if (at === undefined || at < 0 || at >= data.rows.length) {
                data.rows.forEach(function (r, i) { if (r.device === c.device) at = i; });
            }
            (countersAfter[at] = countersAfter[at] || []).push(ci);
        });
        data.rows.forEach(function (r, i) {
            if (hidden[i]) nHidden++;
            if (!hidden[i]) {
                if (r.group !== group) {
                    group = r.group;
                    var g = add(rowLabels, 'div', 'ot-group', r.group);
                    g.style.top = y + 'px';
                    g.style.height = GROUP_H + 'px';
                    y += GROUP_H;
                }
                var n = levelsOf(r), lh = n > 1 ? LEVEL_H : SINGLE_H;
                rowY[i] = y; rowLH[i] = lh; rowH[i] = n * lh;
                var lab = add(rowLabels, 'div', 'ot-row');
                lab.dataset.row = i;
                lab.style.top = y + 'px';
                lab.style.height = rowH[i] + 'px';
                var x = add(lab, 'button', 'ot-hide', '\u00d7');
                x.type = 'button';
                x.title = 'hide this row ("show all rows" brings it back)';
                x.addEventListener('click', function () { hidden[i] = true; relayout(); });
                var name = add(lab, 'span', 'ot-row-name', r.label);
                name.title = r.label + ' (' + r.kind + (r.device >= 0 ? ', ' + deviceName(r) : '') + ')';
                y += rowH[i] + ROW_GAP;
            }
            (countersAfter[i] || []).forEach(function (ci) {
                var c = data.counters[ci];
                if (hidden['c' + ci]) { nHidden++; return; }
                counterY[ci] = y;
                var lab = add(rowLabels, 'div', 'ot-row ot-counter');
                lab.dataset.counter = ci;
                lab.style.top = y + 'px';
                lab.style.height = COUNTER_H + 'px';
                var x = add(lab, 'button', 'ot-hide', '\u00d7');
                x.type = 'button';
                x.title = 'hide this track';
                x.addEventListener('click', function () { hidden['c' + ci] = true; relayout(); });
                add(lab, 'span', 'ot-row-name', c.name).title = c.name + ', at most ' + fmtBytes(c.max || 0) + ' in the run';
                add(lab, 'span', 'ot-counter-max', 'up to ' + fmtBytes(c.max || 0));
                y += COUNTER_H + ROW_GAP;
            });
        });
        bodyH = Math.max(y, 40);
        showAll.disabled = nHidden === 0;
        showAll.textContent = nHidden ? 'show all rows (' + nHidden + ' hidden)' : 'show all rows';
        resize();
    }

    /* ---- the visible range ---- */

    var v0 = 0, v1 = D, plotW = 800, dpr = 1;
    if (data.open && data.open[1] > data.open[0]) { v0 = data.open[0]; v1 = Math.min(D, data.open[1]); }

    function clampView() {
        var span = v1 - v0;
        if (span >= D) { v0 = 0; v1 = D; return; }
        if (span < MIN_SPAN_NS) { var c = (v0 + v1) / 2; v0 = c - MIN_SPAN_NS / 2; v1 = c + MIN_SPAN_NS / 2; }
        if (v0 < 0) { v1 -= v0; v0 = 0; }
        if (v1 > D) { v0 -= v1 - D; v1 = D; }
    }
    /* Zoom by \p k (< 1: in) around plot x \p x (null: the middle). */
    function zoomBy(k, x) {
        var c = x === null ? (v0 + v1) / 2 : v0 + (x / plotW) * (v1 - v0);
        if (k < 1 && v1 - v0 <= MIN_SPAN_NS) return;
        v0 = c - (c - v0) * k;
        v1 = c + (v1 - c) * k;
        clampView();
        later();
    }
    function panBy(ns) { v0 += ns; v1 += ns; clampView(); later(); }
    function reset() { v0 = 0; v1 = D; later(); }
    function xOf(t) { return (t - v0) * plotW / (v1 - v0); }
    function tOf(x) { return v0 + x * (v1 - v0) / plotW; }

    function resize() {
        var w = Math.max(200, timeline.clientWidth - LABEL_W);
        plotW = w;
        dpr = window.devicePixelRatio || 1;
        canvas.width = Math.round(w * dpr);
        canvas.height = Math.round(bodyH * dpr);
        canvas.style.width = w + 'px';
        canvas.style.height = bodyH + 'px';
        body.style.height = bodyH + 'px';
        barLabels.style.width = w + 'px';
        barLabels.style.height = bodyH + 'px';
        draw();
    }

    /* ---- tiles ---- */

    function tileSpan(k) { return D / Math.pow(2, k); }
    /* Start of tile (k, i) as C computes it, floor(i * D / 2^k), exactly (BigInt where doubles would round). */
    function tileBound(k, i) {
        if (i * D < 9007199254740992) return Math.floor(i * D / Math.pow(2, k));
        return Number((BigInt(i) * BigInt(D)) >> BigInt(k));
    }
    /* A tile's own window and column width: from its t0/t1 (format additions), else computed. */
    function tileStart(t) { return t.t0 !== undefined ? t.t0 : tileBound(t.k, t.i); }
    function tileCol(t) { return ((t.t1 !== undefined ? t.t1 : tileBound(t.k, t.i + 1)) - tileStart(t)) / TILE_PX; }
    /* The coarsest level whose column is at most one screen pixel. */
    function levelFor() {
        var k = Math.ceil(Math.log2(D * plotW / (TILE_PX * (v1 - v0))) - 1e-9);
        return Math.max(0, Math.min(data.max_level !== undefined ? data.max_level : 60, k));
    }
    function fetchTile(k, i) {
        var key = k + '/' + i;
        if (pending[key] || absent[key] || tiles[key] || nPending >= MAX_FETCHES) return;
        pending[key] = true;
        nPending++;
        fetch('tile/' + key + '.json').then(function (r) {
            if (r.status === 404) return null;
            if (!r.ok) throw new Error('tile ' + key + ': HTTP ' + r.status);
            return r.json();
        }).then(function (t) {
            if (t) tiles[key] = t; else absent[key] = true;
        }, function (e) {
            absent[key] = true;
            fetchError = String(e.message || e);
        }).then(function () { delete pending[key]; nPending--; later(); });
    }
    var fetchError = '';

    /* Whether tile t has anything in [r0, r1): a child tile without it does not exist, no need to ask. */
    function hasContent(t, r0, r1) {
        var col = tileCol(t), ts = tileStart(t), n, x;
        for (n = 0; n < (t.marks || []).length; n++) {
            x = t.marks[n];
            if (ts + (x[3] + 1) * col > r0 && ts + x[2] * col < r1) return true;
        }
        for (n = 0; n < (t.bars || []).length; n++) { x = t.bars[n]; if (x[3] >= r0 && x[2] < r1) return true; }
        for (n = 0; n < (t.arrows || []).length; n++) { x = t.arrows[n]; if (Math.max(x[6], x[7]) >= r0 && x[5] < r1) return true; }
        for (n = 0; n < (t.memory || []).length; n++) {
            x = t.memory[n];   /* the value in force at the tile's start alone is not content */
            if (x[1] >= r0 && x[1] < r1 && !(n === 0 && x[1] === ts)) return true;
        }
        return false;
    }

    /* What to draw for tile (k, i): the tile, else its nearest ancestor there is
     * (exact: the same bars; else coarser than the screen). In serve mode the
     * ancestor's missing child towards (k, i) is fetched. */
    function source(k, i) {
        for (var j = 0; j <= k; j++) {
            var key = (k - j) + '/' + Math.floor(i / Math.pow(2, j)), t = tiles[key];
            if (!t) continue;
            if (j > 0 && !t.exact && data.serve) {
                var ci = Math.floor(i / Math.pow(2, j - 1));
                if (hasContent(t, tileBound(k - j + 1, ci), tileBound(k - j + 1, ci + 1))) fetchTile(k - j + 1, ci);
            }
            return {tile: t, coarse: j > 0 && !t.exact};
        }
        if (data.serve) fetchTile(0, 0);
        return null;
    }

    /* ---- drawing ---- */

    var frame = null;       /* what the last frame drew, for clicks, hover and statistics */
    var selected = null;    /* {kind, ...} the clicked item */
    var range = null;       /* [t0, t1] the selected time range */
    var pendingDraw = false, lastMs = 0;

    function later() {
        if (!pendingDraw) { pendingDraw = true; window.requestAnimationFrame(function () { pendingDraw = false; draw(); }); }
    }

    function colourOf(region) {
        var r = data.regions[region];
        var c = data.classes[r ? r.cat : data.classes.length - 1];
        return c ? c.colour : '#bab0ac';
    }
    function catOf(region) { var r = data.regions[region]; return r ? r.cat : data.classes.length - 1; }
    /* A region's name and where it is in the source, for the panel's lines about other regions. */
    function nameAt(region) {
        var r = data.regions[region];
        return nameOf(region) + (r && r.site ? ' (' + r.site + ')' : '');
    }
    /* A region's name without the " @file:line" the archive's names may end in: the site is shown apart. */
    function nameOf(region) {
        var r = data.regions[region];
        if (!r) return 'region ' + region;
        var tail = r.site ? ' @' + r.site : '';
        return tail && r.name.length > tail.length && r.name.slice(-tail.length) === tail ?
            r.name.slice(0, -tail.length) : r.name;
    }
    function dark(hex) {
        var v = parseInt(hex.slice(1), 16), r = v >> 16, g = (v >> 8) & 255, b = v & 255;
        return 0.299 * r + 0.587 * g + 0.114 * b < 150;
    }
    function levelY(row, level) { return rowY[row] + level * rowLH[row] + 1; }
    function barH(row) { return rowLH[row] - 2; }

    /* The tiles of the frame: for each tile index covering [v0, v1) at level k,
     * its source and the time range it stands for. */
    function frameTiles(k, t0, t1) {
        var span = tileSpan(k), n = Math.pow(2, k);
        var first = Math.max(0, Math.floor(t0 / span)), last = Math.min(n - 1, Math.floor(t1 / span));
        while (first > 0 && tileBound(k, first) > t0) first--;
        while (last < n - 1 && tileBound(k, last + 1) <= t1) last++;
        var out = [];
        /* arrows are only in the tile where they were issued: the one left of the view has those that
         * end inside it */
        if (first > 0) out.push({k: k, i: first - 1, r0: tileBound(k, first - 1), r1: tileBound(k, first),
            src: source(k, first - 1), arrowsOnly: true});
        for (var i = first; i <= last; i++) {
            out.push({k: k, i: i, r0: tileBound(k, i), r1: i === n - 1 ? D + 1 : tileBound(k, i + 1), src: source(k, i)});
        }
        return out;
    }

    function arrowShown(a) {
        var mode = arrowMode.value;
        if (mode === 'all') return true;
        if (mode === 'none') return false;
        if (range && a[5] >= range[0] && a[5] <= range[1]) return true;
        if (!selected) return false;
        if (selected.kind === 'arrow') return selected.a[5] === a[5] && selected.a[0] === a[0] && selected.a[2] === a[2];
        if (selected.kind === 'bar') return arrowsOfBar(selected.b, [a]).length > 0;
        return false;
    }
    /* The arrows a data op issued (host row) or a transfer bar belongs to (RDMA row); the messages an MPI call
     * sent (sender's row, at the send) or in which they were received (receiver's row, at the receive). */
    function arrowsOfBar(b, arrows) {
        var s = b[4], e = b[4] + b[5];
        return arrows.filter(function (a) {
            if (a[2] === MESSAGE && a[1] === b[0] && a[6] >= s && a[6] <= e) return true;
            return (a[0] === b[0] || (a[1] === b[0] && a[2] !== MESSAGE)) && a[5] >= s && a[5] <= e;
        });
    }

    function draw() {
        var started = performance.now();
        var W = plotW, span = v1 - v0, k = levelFor();
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.clearRect(0, 0, W, bodyH);
        ctx.font = labelFont;
        var ticks = drawAxis(W);
        ctx.strokeStyle = '#ececec';
        ctx.lineWidth = 1;
        ctx.beginPath();
        ticks.forEach(function (x) { ctx.moveTo(Math.round(x) + 0.5, 0); ctx.lineTo(Math.round(x) + 0.5, bodyH); });
        ctx.stroke();
        if (range) {
            ctx.fillStyle = 'rgba(80,120,200,0.13)';
            ctx.fillRect(xOf(range[0]), 0, xOf(range[1]) - xOf(range[0]), bodyH);
        }

        marksBatch = {};
        barsBatch = {};
        var ft = frameTiles(k, v0, v1);
        var seen = {}, f = {k: k, bars: [], marks: [], arrows: [], memory: [], tiles: ft, coarse: false, missing: 0,
            labels: 0};
        var frag = document.createDocumentFragment();
        ft.forEach(function (p) {
            if (!p.src) { if (!p.arrowsOnly) f.missing++; return; }
            var t = p.src.tile;
            var lo = Math.max(p.r0, v0), hi = Math.min(p.r1, v1);
            var col = tileCol(t), tstart = tileStart(t);
            /* merged marks first, under the bars; clipped to the part this tile stands for */
            (p.arrowsOnly ? [] : t.marks || []).forEach(function (m) {
                var row = m[0];
                if (rowY[row] === undefined || m[1] >= levelsOf(data.rows[row])) return;
                var a = Math.max(tstart + m[2] * col, lo), b = Math.min(tstart + (m[3] + 1) * col, hi);
                if (b <= a) return;
                if (p.src.coarse) f.coarse = true;
                var x0 = xOf(a), x1 = xOf(b), h = barH(row), y = levelY(row, m[1]) + h * (1 - MARK_SHARE);
                batch(((data.classes[m[4]] || {}).colour || '#bab0ac') + '/' + Math.max(1, Math.min(4, m[5])),
                    x0, y, Math.max(x1 - x0, 1), h * MARK_SHARE);
                f.marks.push({x0: x0, x1: Math.max(x1, x0 + 1), y0: y, y1: y + h * MARK_SHARE, m: m, tile: t});
            });
            (p.arrowsOnly ? [] : t.bars || []).forEach(function (b) {
                var row = b[0];
                if (rowY[row] === undefined || b[1] >= levelsOf(data.rows[row])) return;
                if (b[3] < lo || b[2] > hi) return;
                var key = b[8] + '/' + b[2];
                if (seen[key]) return;
                seen[key] = true;
                var x0 = xOf(b[2]), x1 = xOf(b[3]);
                if (x1 < 0 || x0 > W) return;
                var cx0 = Math.max(x0, -1), cx1 = Math.min(x1, W + 1), w = cx1 - cx0;
                var y = levelY(row, b[1]), h = barH(row), colour = colourOf(b[6]);
                batch(colour + '/4', cx0, y, Math.max(w >= 3 ? w - 0.75 : w, 1), h, true);
                f.bars.push({x0: cx0, x1: Math.max(cx1, cx0 + 1), y0: y, y1: y + h, b: b});
                if (w >= MIN_LABEL_PX) {
                    var vis0 = Math.max(cx0, 0), vis1 = Math.min(cx1, W), room = vis1 - vis0 - 6;
                    var text = barLabel(b, room);
                    if (text) {
                        var s = el('span', 'ot-bar-label' + (dark(colour) ? ' ot-on-dark' : ''), text);
                        s.style.left = (vis0 + 3) + 'px';
                        s.style.top = y + 'px';
                        s.style.width = room + 'px';
                        s.style.height = h + 'px';
                        s.style.lineHeight = h + 'px';
                        s.dataset.id = b[8];
                        frag.appendChild(s);
                        f.labels++;
                    }
                }
            });
            /* an arrow is drawn once, by the piece its start falls in (or by its own tile, for one
             * that started earlier); a coarser ancestor's only inside the piece it stands for */
            (t.arrows || []).forEach(function (a) {
                var owned = a[5] >= p.r0 && a[5] < p.r1, key = a[0] + '/' + a[1] + '/' + a[2] + '/' + a[5];
                if (!owned && (t.k !== p.k || a[5] >= p.r0)) return;
                if (Math.max(a[6], a[7]) < v0 || a[5] > v1 || seen[key]) return;
                if (rowY[a[0]] === undefined || rowY[a[1]] === undefined) return;
                seen[key] = true;
                if (p.src.coarse && a[3] > 1) f.coarse = true;
                f.arrows.push(arrowGeometry(a));
            });
            /* memory: the samples inside the piece, and the value in force at its start */
            var before = {};
            (p.arrowsOnly ? [] : t.memory || []).forEach(function (s) {
                if (s[1] < p.r0) { before[s[0]] = s; return; }
                if (s[1] < p.r1) f.memory.push({s: s, lo: p.r0, hi: p.r1});
            });
            Object.keys(before).forEach(function (c) { f.memory.push({s: before[c], lo: p.r0, hi: p.r1}); });
        });
        flush(marksBatch);
        flush(barsBatch);
        drawMemory(f, W);
        ctx.lineCap = 'round';
        f.arrows.forEach(function (it) {
            it.shown = arrowShown(it.a);
            if (it.shown) drawArrow(it);
        });
        drawSelected(f);
        barLabels.textContent = '';
        barLabels.appendChild(frag);
        frame = f;
        lastMs = performance.now() - started;
        heading(f, span);
    }

    /* Rectangles are gathered by colour and opacity and filled one path per
     * style: switching the fill style per rectangle costs more than drawing it. */
    var marksBatch = {}, barsBatch = {};
    function batch(style, x, y, w, h, isBar) {
        var b = isBar ? barsBatch : marksBatch;
        (b[style] = b[style] || []).push(x, y, w, h);
    }
    function flush(b) {
        Object.keys(b).forEach(function (style) {
            var r = b[style], cut = style.lastIndexOf('/');
            ctx.fillStyle = style.slice(0, cut);
            ctx.globalAlpha = MARK_ALPHA[Number(style.slice(cut + 1)) - 1];
            ctx.beginPath();
            for (var n = 0; n < r.length; n += 4) ctx.rect(r[n], r[n + 1], r[n + 2], r[n + 3]);
            ctx.fill();
        });
        ctx.globalAlpha = 1;
    }

    /* Name, then the duration if there is room; shortened with an ellipsis when the name does not fit. */
    function barLabel(b, room) {
        var name = nameOf(b[6]), full = name + '  ' + fmtDur(b[5]);
        if (ctx.measureText(full).width <= room) return full;
        if (ctx.measureText(name).width <= room) return name;
        var lo = 0, hi = name.length;
        while (lo < hi) {
            var mid = (lo + hi + 1) >> 1;
            if (ctx.measureText(name.slice(0, mid) + '\u2026').width <= room) lo = mid; else hi = mid - 1;
        }
        return lo >= 2 ? name.slice(0, lo) + '\u2026' : '';
    }

    /* From row a[0] to row a[1] (device->host: the other way), forward in time: a message received "before"
     * its send (the ranks' clocks, docs/mpi.md) ends straight below or above its start. */
    function arrowGeometry(a) {
        var from = a[0], to = a[1];
        var fy = levelY(from, 0) + barH(from) / 2, ty = levelY(to, 0) + barH(to) / 2;
        var x0 = xOf(a[5]), x1 = xOf(Math.max(a[6], a[5]));
        return a[2] ? {a: a, x0: x0, y0: fy, x1: x1, y1: ty} : {a: a, x0: x0, y0: ty, x1: x1, y1: fy};
    }
    function drawArrow(it) {
        var a = it.a, w = a[3] >= 16 ? 2 : a[3] >= 2 ? 1.5 : 1;
        var dx = it.x1 - it.x0, dy = it.y1 - it.y0, l = Math.sqrt(dx * dx + dy * dy) || 1, ux = dx / l, uy = dy / l;
        var bx = it.x1 - ux * 6, by = it.y1 - uy * 6;
        ctx.strokeStyle = ctx.fillStyle = ARROW_COLOUR[a[2]] || ARROW_COLOUR[0];
        ctx.lineWidth = w;
        ctx.beginPath();
        ctx.moveTo(it.x0, it.y0);
        ctx.lineTo(it.x1, it.y1);
        ctx.stroke();
        ctx.beginPath();
        ctx.moveTo(it.x1, it.y1);
        ctx.lineTo(bx - uy * 3, by + ux * 3);
        ctx.lineTo(bx + uy * 3, by - ux * 3);
        ctx.closePath();
        ctx.fill();
    }

    /* Each memory track: the value in use as a step function, scaled to the counter's maximum. */
    function drawMemory(f, W) {
        (data.counters || []).forEach(function (c, ci) {
            var y = counterY[ci];
            if (y === undefined) return;
            var samples = f.memory.filter(function (m) { return m.s[0] === ci; }).map(function (m) {
                return [Math.max(m.s[1], m.lo), m.s[2], m.hi];
            }).sort(function (p, q) { return p[0] - q[0]; });
            var max = Math.max(1, c.max || 0), h = COUNTER_H - 6, base = y + COUNTER_H - 2;
            ctx.fillStyle = '#f6f6f6';
            ctx.fillRect(0, y, W, COUNTER_H);
            if (!samples.length) return;
            ctx.beginPath();
            ctx.moveTo(Math.max(xOf(samples[0][0]), -1), base);
            samples.forEach(function (s, i) {
                var x = Math.max(xOf(s[0]), -1), end = i + 1 < samples.length ? samples[i + 1][0] : s[2];
                var yv = base - h * Math.min(1, s[1] / max);
                ctx.lineTo(x, yv);
                ctx.lineTo(Math.min(xOf(end), W + 1), yv);
            });
            ctx.lineTo(Math.min(xOf(samples[samples.length - 1][2]), W + 1), base);
            ctx.closePath();
            ctx.fillStyle = 'rgba(76,120,200,0.35)';
            ctx.strokeStyle = '#4c78c8';
            ctx.lineWidth = 1;
            ctx.fill();
            ctx.stroke();
            f.memoryTracks = f.memoryTracks || [];
            f.memoryTracks[ci] = samples;
        });
    }

    function drawSelected(f) {
        if (!selected) return;
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 2;
        if (selected.kind === 'bar') {
            f.bars.forEach(function (it) {
                if (it.b[8] === selected.b[8]) ctx.strokeRect(it.x0, it.y0, it.x1 - it.x0, it.y1 - it.y0);
            });
        } else if (selected.kind === 'mark') {
            var it = selected.item;
            if (f.marks.indexOf(it) >= 0) ctx.strokeRect(it.x0, it.y0, it.x1 - it.x0, it.y1 - it.y0);
        }
    }

    /* ---- axis and heading ---- */

    function tickStep(spanNs, n) {
        var m = [1, 2, 5];
        for (var dec = 1; ; dec *= 10) for (var i = 0; i < 3; i++) if (spanNs / (m[i] * dec) <= n) return m[i] * dec;
    }
    function tickLabel(t, step, max) {
        if (t === 0) return '0';
        var u = unitOf(max), dec = 0, p = u[0];
        while (p > 1 && step % p) { p /= 10; dec++; }
        return (t / u[0]).toFixed(dec) + ' ' + u[1];
    }
    function drawAxis(W) {
        axis.textContent = '';
        var spanNs = Math.max(v1 - v0, 1), step = tickStep(spanNs, Math.max(2, Math.floor(W / 110))), xs = [];
        for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
            var x = xOf(t);
            xs.push(x);
            var s = add(axis, 'span', 'ot-tick', tickLabel(t, step, v1));
            s.style.left = (LABEL_W + x) + 'px';
            if (x > W - 40) s.classList.add('ot-tick-end');
            else if (x < 30) s.classList.add('ot-tick-start');
        }
        return xs;
    }

    function heading(f, span) {
        var zoom = D / span;
        rangeLine.dataset.fromNs = Math.round(v0);
        rangeLine.dataset.toNs = Math.round(v1);
        rangeLine.textContent = 'showing ' + fmtTime(v0, span / 1000) + ' \u2013 ' + fmtTime(v1, span / 1000) +
            ' (' + fmtDur(span) + ' of ' + fmtDur(D) + ', zoom \u00d7' +
            (zoom < 10 ? zoom.toFixed(2) : zoom < 1000 ? zoom.toFixed(1) : Math.round(zoom)) + ')';
        var srcs = {};
        f.tiles.forEach(function (p) { if (p.src && !p.arrowsOnly) srcs[p.src.tile.k + '/' + p.src.tile.i] = true; });
        statusLine.textContent = 'level ' + f.k + ', ' + plural(Object.keys(srcs).length, 'tile') + ': ' +
            plural(f.bars.length, 'bar') + ', ' + plural(f.marks.length, 'merged mark') + ', ' +
            plural(f.arrows.filter(function (a) { return a.shown; }).length, 'arrow') + ' drawn in ' +
            lastMs.toFixed(1) + ' ms';
        statusLine.dataset.frameMs = lastMs.toFixed(2);
        var msg = '';
        if (nPending) msg = 'Loading detail (' + plural(nPending, 'tile') + ')\u2026 ';
        if (f.coarse) {
            msg += data.serve ? 'Detail here is still coarser than the screen (merged marks where the trace has ' +
                'separate regions).' : 'Detail here is coarser than the screen: merged marks stand for regions this ' +
                'file has no room to draw one by one. "offtrace view ' + data.archive + ' --serve" draws them.';
        }
        if (f.missing && !nPending && !data.serve) msg += 'This file holds nothing for part of this range; ' +
            '"offtrace view ' + data.archive + ' --serve" has it. ';
        if (fetchError) msg += ' Could not fetch a tile: ' + fetchError;
        note.textContent = msg;
        note.style.display = msg ? '' : 'none';
        budgetNote.style.display = budgetNote.textContent ? '' : 'none';
    }

    /* ---- finding what is under the pointer ---- */

    function hit(x, y) {
        if (!frame) return null;
        var i, it;
        /* an arrow right under the pointer, else a bar or mark, else an arrow near it: arrows cross
         * every row and would otherwise take most clicks at a coarse zoom */
        var near = null;
        for (i = frame.arrows.length - 1; i >= 0; i--) {
            it = frame.arrows[i];
            if (!it.shown) continue;
            var dist = segDist(x, y, it);
            if (dist <= 1.5) return {kind: 'arrow', a: it.a, item: it};
            if (dist <= 4 && !near) near = {kind: 'arrow', a: it.a, item: it};
        }
        for (i = frame.bars.length - 1; i >= 0; i--) {
            it = frame.bars[i];
            if (x >= it.x0 - 0.5 && x <= it.x1 + 0.5 && y >= it.y0 && y <= it.y1) return {kind: 'bar', b: it.b, item: it};
        }
        for (i = frame.marks.length - 1; i >= 0; i--) {
            it = frame.marks[i];
            if (x >= it.x0 - 0.5 && x <= it.x1 + 0.5 && y >= it.y0 - 2 && y <= it.y1) return {kind: 'mark', m: it.m, item: it};
        }
        if (near) return near;
        for (var ci in counterY) {
            if (y >= counterY[ci] && y < counterY[ci] + COUNTER_H) return {kind: 'memory', c: +ci, t: tOf(x)};
        }
        return null;
    }
    function segDist(x, y, s) {
        var dx = s.x1 - s.x0, dy = s.y1 - s.y0, l2 = dx * dx + dy * dy;
        var u = l2 ? Math.max(0, Math.min(1, ((x - s.x0) * dx + (y - s.y0) * dy) / l2)) : 0;
        var px = s.x0 + u * dx - x, py = s.y0 + u * dy - y;
        return Math.sqrt(px * px + py * py);
    }

    /* ---- the details panel ---- */

    function panelStart(heading) {
        panel.textContent = '';
        add(panel, 'h2', 'ot-panel-title', heading);
        var dl = add(panel, 'dl', 'ot-facts');
        return function (k, v) {
            if (v === undefined || v === null || v === '') return;
            add(dl, 'dt', '', k);
            add(dl, 'dd', '', v);
        };
    }
    function rowName(i) {
        var r = data.rows[i];
        return r ? r.label + (r.device >= 0 ? ' (' + deviceName(r) + ', ' + r.kind + ')' : ' (' + r.kind + ')') : '';
    }
    /* "device 0"; in an MPI job's archive (rows carry their rank) "rank 1 device 0". */
    function deviceName(r) {
        return r.rank !== undefined ? 'rank ' + r.rank + ' device ' + r.number : 'device ' + r.device;
    }
    /* Every bar of the current frame's tiles (not only those drawn), for flow partners. */
    function tileBars() {
        var out = [];
        frame.tiles.forEach(function (p) { if (p.src) out = out.concat(p.src.tile.bars || []); });
        return out;
    }
    /* The arrows of the frame, each once and from the tile that stands for where it was issued (a
     * coarser ancestor's only inside the part it stands for), shown or not. */
    function frameArrows() { return frame.arrows.map(function (it) { return it.a; }); }
    function transferNote(bytes, ns, row) {
        var r = data.rows[row] || {};
        var dev = (data.devices || []).filter(function (d) { return d.device === r.device; })[0];
        if (dev) return dev.host ? 'the device is the host (host offloading): this was a memory copy' : '';
        return bytes ? 'on a host-offload device (the x86_64 plugin) a transfer is a memory copy on the host' : '';
    }

    /* ompt_task_flag_t bits, as words */
    function taskFlags(f) {
        var names = [[0x08, 'target'], [0x10, 'taskwait'], [0x08000000, 'undeferred'], [0x10000000, 'untied'],
                     [0x20000000, 'final'], [0x40000000, 'mergeable'], [0x80000000, 'merged']];
        var words = names.filter(function (n) { return Math.floor(f / n[0]) % 2 === 1; })
            .map(function (n) { return n[1]; });
        return (words.length ? words.join(', ') : 'explicit') + ' (0x' + f.toString(16) + ')';
    }

    function showBar(b) {
        var r = data.regions[b[6]] || {}, cls = data.classes[r.cat] || {};
        var put = panelStart(nameOf(b[6]));
        put('class', cls.name);
        put('site', r.site || 'unknown');
        if (r.variable) put('variable', r.variable);   /* a data op (issue 15) */
        if (r.map_type) put('map type', r.map_type);
        put('row', rowName(b[0]) + ', level ' + (b[1] + 1));
        put('inside', b[9] >= 0 ? nameAt(b[9]) : 'nothing (outermost)');
        put('start', fmtTime(b[4], 1) + ' from the trace start (' + Math.round(b[4]) + ' ns)');
        put('duration', fmtExact(b[5]));
        if (b[2] !== b[4] || b[3] !== b[4] + b[5]) put('this piece', fmtTime(b[2], 1) + ' \u2013 ' + fmtTime(b[3], 1) +
            ' (' + fmtDur(b[3] - b[2]) + '; the region is split by the regions nested in it)');
        var arrows = arrowsOfBar(b, frameArrows());
        if (b[7]) {
            put('bytes', fmtBytes(b[7]) + ' (' + b[7] + ')');
            put('bandwidth', fmtRate(b[7], b[5]));
            /* a data op on a host thread: its device is where its transfers go */
            put('note', transferNote(b[7], b[5], arrows.length ? arrows[0][1] : b[0]));
        }
        if (b.length > 12) {   /* a host explicit task: [..., id, flags, 3] */
            put('task id', String(b[10]));
            put('task flags', taskFlags(b[11]));
        } else if (b.length > 11) {   /* host OpenMP: a loop's trip count; a chunk's iterations and time per iteration */
            if (b[11] >= 0) {
                put('iterations', b[11] + ' \u2013 ' + (b[11] + b[10] - 1) + ' (' + b[10] + ', logical)');
                put('per iteration', fmtDur(b[5] / Math.max(1, b[10])));
            } else {
                put('iterations', String(b[10]));
            }
        }
        if (r.cat === CAT_TARGET) {   /* a target construct: the kernels it launched */
            var seenK = {};
            tileBars().forEach(function (k) {
                if (catOf(k[6]) !== CAT_KERNEL || k[4] < b[4] || k[4] > b[4] + b[5] || seenK[k[8]]) return;
                seenK[k[8]] = true;
                put('kernel', nameAt(k[6]) + ' on ' + rowName(k[0]) + ', ' + fmtExact(k[5]));
            });
        }
        if (r.cat === CAT_KERNEL) {   /* a kernel: the target construct that launched it */
            var seenT = {};
            tileBars().forEach(function (c) {
                if (catOf(c[6]) !== CAT_TARGET || c[4] > b[4] || c[4] + c[5] < b[4] || seenT[c[8]]) return;
                seenT[c[8]] = true;
                put('launched by', nameAt(c[6]) + ' on ' + rowName(c[0]) + ', ' + fmtExact(c[5]));
            });
        }
        var transfers = arrows.filter(function (a) { return a[2] !== MESSAGE; });
        if (transfers.length) {
            var n = 0, bytes = 0, merged = false;
            transfers.forEach(function (a) { n += a[3]; bytes += a[4]; merged = merged || a[3] > 1; });
            put('transfers', merged ? plural(transfers.length, 'arrow') + ' starting in it stand for ' +
                plural(n, 'transfer') + ', ' + fmtBytes(bytes) + ', some perhaps issued after it: zoom in to tell ' +
                'them apart' : plural(n, 'transfer') + ' issued in it, ' + fmtBytes(bytes));
        }
        var within = function (t) { return t >= b[4] && t <= b[4] + b[5]; };
        var sent = arrows.filter(function (a) { return a[2] === MESSAGE && a[0] === b[0] && within(a[5]); });
        var received = arrows.filter(function (a) { return a[2] === MESSAGE && a[1] === b[0] && within(a[6]); });
        [['messages sent', sent, 1], ['messages received', received, 0]].forEach(function (m) {
            if (!m[1].length) return;
            var n = 0, bytes = 0, peers = {};
            m[1].forEach(function (a) { n += a[3]; bytes += a[4]; peers[rankOf(a[m[2]])] = true; });
            put(m[0], plural(n, 'message') + ', ' + fmtBytes(bytes) + ', ' + (m[2] ? 'to' : 'from') + ' rank ' +
                Object.keys(peers).join(', '));
        });
    }
    /* A row's MPI rank (0 outside a job). */
    function rankOf(row) { var r = data.rows[row]; return r && r.rank !== undefined ? r.rank : 0; }
    /* MPI messages (issue 16): from the sender's row at the send to the receiver's at the receive. */
    function showMessage(a) {
        var put = panelStart(plural(a[3], 'MPI message') + ' rank ' + rankOf(a[0]) + ' \u2192 rank ' + rankOf(a[1]));
        put('from', rowName(a[0]));
        put('to', rowName(a[1]));
        put(a[3] > 1 ? 'first sent' : 'sent', fmtTime(a[5], 1) + ' (' + Math.round(a[5]) + ' ns)');
        put(a[3] > 1 ? 'first received' : 'received', fmtTime(a[6], 1) + ' (' + Math.round(a[6]) + ' ns)');
        if (a[3] > 1) put('last received', fmtTime(a[7], 1));
        put(a[3] > 1 ? 'in flight (summed)' : 'send to receive', a[6] >= a[5] || a[3] > 1 ? fmtExact(a[8]) :
            'received ' + fmtExact(a[5] - a[6]) + ' before it was sent: the ranks\' clocks differ by more');
        put('bytes', fmtBytes(a[4]) + ' (' + a[4] + ')');
        if (a[3] > 1) put('merged', 'messages sent within 6 px of each other share one arrow: zoom in to tell them apart');
    }
    function showArrow(a) {
        if (a[2] === MESSAGE) { showMessage(a); return; }
        var put = panelStart(plural(a[3], 'transfer') + ' ' + (a[2] ? 'host\u2192device' : 'device\u2192host'));
        put('from', a[2] ? rowName(a[0]) : rowName(a[1]));
        put('to', a[2] ? rowName(a[1]) : rowName(a[0]));
        put(a[3] > 1 ? 'first issued' : 'issued', fmtTime(a[5], 1) + ' (' + Math.round(a[5]) + ' ns)');
        put(a[3] > 1 ? 'first completed' : 'completed', fmtTime(a[6], 1));
        if (a[3] > 1) put('last completed', fmtTime(a[7], 1));
        put(a[3] > 1 ? 'busy (summed)' : 'duration', fmtExact(a[8]));
        put('bytes', fmtBytes(a[4]) + ' (' + a[4] + ')');
        put('bandwidth', fmtRate(a[4], a[8]));
        put('note', transferNote(a[4], a[8], a[1]));
        if (a[3] > 1) put('merged', 'transfers issued within 6 px of each other share one arrow: zoom in to tell them apart');
        var ops = tileBars().filter(function (b) {
            var c = catOf(b[6]);
            return b[0] === a[0] && (c === CAT_H2D || c === CAT_D2H) && b[4] <= a[5] && b[4] + b[5] >= a[5];
        });
        var done = {};
        if (!ops.length) put('data op', 'narrower than a pixel at this zoom (in a merged mark): zoom in to see it');
        ops.forEach(function (b) {
            if (done[b[8]]) return;
            done[b[8]] = true;
            put('data op', nameAt(b[6]) + ' on ' + rowName(b[0]) + ', ' + fmtDur(b[5]) + ' from ' + fmtTime(b[4], 1));
        });
    }
    function showMark(m, tile) {
        var col = tileCol(tile), t0 = tileStart(tile) + m[2] * col;
        var put = panelStart('Merged: ' + plural(m[6], 'region') + ' starting here');
        put('row', rowName(m[0]) + ', level ' + (m[1] + 1));
        put('time', fmtTime(t0, col) + ' \u2013 ' + fmtTime(t0 + (m[3] - m[2] + 1) * col, col));
        put('covered', fmtDur(m[7]) + ' of ' + fmtDur((m[3] - m[2] + 1) * col));
        (m[9] || []).forEach(function (c) {
            put((data.classes[c[0]] || {}).name || 'class ' + c[0], fmtDur(c[1]) + ' (' +
                Math.round(100 * c[1] / Math.max(m[7], 1)) + ' %)');
        });
        if (m[8]) put('bytes', fmtBytes(m[8]));
        put('note', 'each of these regions is narrower than ' + fmtDur(col) + ': zoom in to see them one by one');
    }
    function showMemory(ci, t) {
        var c = data.counters[ci], samples = (frame.memoryTracks || [])[ci] || [], v = null;
        samples.forEach(function (s) { if (s[0] <= t) v = s[1]; });
        var put = panelStart(c.name);
        put('at', fmtTime(t, (v1 - v0) / plotW));
        put('in use', v === null ? 'unknown' : fmtBytes(v) + ' (' + v + ')');
        put('highest in the run', fmtBytes(c.max || 0));
    }

    /* Statistics of [t0, t1] over the rows shown, from the level drawn. Time per class is self time:
     * a region's time in the range less what the regions nested in it (the level below, on its row)
     * cover, so that nesting is not counted twice; merged marks count by the share of their columns
     * inside the range and split between classes as their top classes say. */
    function showRange(t0, t1) {
        range = [t0, t1];
        var byCat = {}, regions = {}, approx = 0, transfers = 0, bytes = 0, messages = 0, messageBytes = 0, seen = {},
            levels = {};
        function item(row, level, it) {
            var key = row + '/' + level;
            (levels[key] = levels[key] || []).push(it);
        }
        frame.tiles.forEach(function (p) {
            if (!p.src || p.arrowsOnly) return;
            var t = p.src.tile, col = tileCol(t), ts = tileStart(t);
            var lo = Math.max(p.r0, t0), hi = Math.min(p.r1, t1);
            if (hi <= lo) return;
            (t.bars || []).forEach(function (b) {
                if (rowY[b[0]] === undefined || seen[b[8] + '/' + b[2]]) return;
                var a = Math.max(b[2], t0), e = Math.min(b[3], t1);
                if (e <= a) return;
                seen[b[8] + '/' + b[2]] = true;
                var cats = {};
                cats[catOf(b[6])] = 1;
                item(b[0], b[1], {a: a, b: e, time: e - a, cats: cats});
                if (b[4] >= t0 && b[4] < t1) regions[b[8]] = true;
            });
            (t.marks || []).forEach(function (m) {
                if (rowY[m[0]] === undefined) return;
                var ma = ts + m[2] * col, mb = ts + (m[3] + 1) * col, a = Math.max(ma, lo), e = Math.min(mb, hi);
                if (e <= a) return;
                var share = (e - a) / (mb - ma), rest = m[7], cats = {};
                (m[9] || []).forEach(function (c) { cats[c[0]] = (cats[c[0]] || 0) + c[1] / Math.max(m[7], 1); rest -= c[1]; });
                if (rest > 0) cats[m[4]] = (cats[m[4]] || 0) + rest / Math.max(m[7], 1);
                item(m[0], m[1], {a: a, b: e, time: m[7] * share, cats: cats});
                approx += m[6] * share;
            });
            (t.arrows || []).forEach(function (a) {
                if (a[5] < lo || a[5] >= hi || rowY[a[0]] === undefined) return;
                if (a[2] === MESSAGE) {
                    messages += a[3];
                    messageBytes += a[4];
                    return;
                }
                transfers += a[3];
                bytes += a[4];
            });
        });
        Object.keys(levels).forEach(function (key) { levels[key].sort(function (p, q) { return p.a - q.a; }); });
        /* time of the items of one sub-row inside [a, b) (a mark's by the share of it inside) */
        function covered(list, a, b) {
            if (!list) return 0;
            var lo = 0, hi = list.length, sum = 0;
            while (lo < hi) { var mid = (lo + hi) >> 1; if (list[mid].b <= a) lo = mid + 1; else hi = mid; }
            for (var n = lo; n < list.length && list[n].a < b; n++) {
                var it = list[n], ov = Math.min(it.b, b) - Math.max(it.a, a);
                if (ov > 0) sum += it.time * ov / Math.max(it.b - it.a, 1e-9);
            }
            return sum;
        }
        Object.keys(levels).forEach(function (key) {
            var parts = key.split('/'), below = levels[parts[0] + '/' + (Number(parts[1]) + 1)];
            levels[key].forEach(function (it) {
                var self = Math.max(0, it.time - covered(below, it.a, it.b));
                for (var c in it.cats) byCat[c] = (byCat[c] || 0) + self * it.cats[c];
            });
        });
        var nRegions = Object.keys(regions).length + Math.round(approx);
        var put = panelStart('Range ' + fmtTime(t0, (t1 - t0) / 1000) + ' \u2013 ' + fmtTime(t1, (t1 - t0) / 1000));
        put('length', fmtExact(t1 - t0));
        put('regions', (approx ? 'about ' : '') + nRegions + ' starting in it' + (approx ? ' (' + Math.round(approx) +
            ' of them in merged marks)' : ''));
        put('transfers', transfers + ', ' + fmtBytes(bytes) + (transfers ? ', ' + fmtRate(bytes, t1 - t0) +
            ' over the range' : ''));
        if (data.messages) put('MPI messages', messages + ' sent in it, ' + fmtBytes(messageBytes));
        var table = add(panel, 'table', 'ot-stats');
        var hr = add(table, 'tr');
        add(hr, 'th', '', 'class');
        add(hr, 'th', '', 'self time');
        add(hr, 'th', '', 'of the range');
        Object.keys(byCat).map(Number).sort(function (p, q) { return byCat[q] - byCat[p]; }).forEach(function (c) {
            var tr = add(table, 'tr'), cls = data.classes[c] || {name: 'class ' + c, colour: '#bab0ac'};
            var td = add(tr, 'td');
            add(td, 'span', 'ot-swatch').style.background = cls.colour;
            td.appendChild(document.createTextNode(cls.name));
            add(tr, 'td', 'ot-num', fmtDur(byCat[c]));
            add(tr, 'td', 'ot-num', (100 * byCat[c] / (t1 - t0)).toFixed(1) + ' %');
        });
        add(panel, 'p', 'ot-small', 'Self time (less what nested regions cover), summed over the ' +
            plural(rowY.filter(function (y) { return y !== undefined; }).length, 'row') + ' shown, so a class can ' +
            'exceed 100 % when several rows run it. From the level drawn: regions narrower than a pixel count by ' +
            'their merged marks. Esc clears the range.');
        later();
    }

    function select(h) {
        selected = h;
        if (!h) return;
        if (h.kind === 'bar') showBar(h.b);
        else if (h.kind === 'arrow') showArrow(h.a);
        else if (h.kind === 'mark') showMark(h.m, h.item.tile);
        else if (h.kind === 'memory') showMemory(h.c, h.t);
        later();
    }

    /* ---- pointer and keys ---- */

    function plotPoint(ev) {
        var r = canvas.getBoundingClientRect();
        return {x: ev.clientX - r.left, y: ev.clientY - r.top};
    }
    var drag = null;

    function onWheel(ev) {
        var p = plotPoint(ev);
        if (p.x < 0 || p.x > plotW) return;
        ev.preventDefault();
        tip.style.display = 'none';
        if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) { panBy(ev.deltaX * (v1 - v0) / plotW); return; }
        var dy = ev.deltaMode === 1 ? ev.deltaY * 33 : ev.deltaMode === 2 ? ev.deltaY * 400 : ev.deltaY;
        zoomBy(Math.max(0.5, Math.min(2, Math.pow(2, dy / 300))), p.x);
    }
    body.addEventListener('wheel', onWheel, {passive: false});
    axis.addEventListener('wheel', onWheel, {passive: false});

    function startDrag(ev, selecting) {
        if (ev.button !== 0) return;
        var p = plotPoint(ev);
        if (p.x < 0 || p.x > plotW) return;
        ev.preventDefault();
        drag = {x: p.x, y: p.y, v0: v0, v1: v1, select: selecting, moved: false};
        body.classList.add(selecting ? 'ot-selecting' : 'ot-dragging');
        tip.style.display = 'none';
    }
    canvas.addEventListener('mousedown', function (ev) { startDrag(ev, ev.shiftKey); });
    barLabels.addEventListener('mousedown', function (ev) { startDrag(ev, ev.shiftKey); });
    axis.addEventListener('mousedown', function (ev) { startDrag(ev, true); });
    window.addEventListener('mousemove', function (ev) {
        var p = plotPoint(ev);
        if (drag) {
            if (Math.abs(p.x - drag.x) >= 3) drag.moved = true;
            if (!drag.moved) return;
            if (drag.select) {
                var a = Math.max(0, Math.min(plotW, Math.min(p.x, drag.x))), b = Math.max(0, Math.min(plotW, Math.max(p.x, drag.x)));
                range = [tOf(a), tOf(b)];
            } else {
                var dt = (p.x - drag.x) * (drag.v1 - drag.v0) / plotW;
                v0 = drag.v0 - dt;
                v1 = drag.v1 - dt;
                clampView();
            }
            later();
            return;
        }
        if (ev.target !== canvas && ev.target !== barLabels && !barLabels.contains(ev.target)) {
            tip.style.display = 'none';
            return;
        }
        hover(p, ev);
    });
    window.addEventListener('mouseup', function (ev) {
        if (!drag) return;
        var d = drag, p = plotPoint(ev);
        drag = null;
        body.classList.remove('ot-selecting', 'ot-dragging');
        if (d.select && d.moved && range && range[1] > range[0]) { showRange(range[0], range[1]); return; }
        if (!d.moved) select(hit(p.x, p.y));
    });
    body.addEventListener('dblclick', function (ev) { ev.preventDefault(); reset(); });
    body.addEventListener('mouseleave', function () { tip.style.display = 'none'; });

    function hover(p, ev) {
        var h = hit(p.x, p.y), text = '';
        if (h && h.kind === 'bar') text = nameOf(h.b[6]) + '\n' + fmtDur(h.b[5]) + ' from ' + fmtTime(h.b[4], 1) +
            (h.b[7] ? '\n' + fmtBytes(h.b[7]) : '');
        else if (h && h.kind === 'mark') text = plural(h.m[6], 'region') + ' merged, ' + fmtDur(h.m[7]) + ' covered';
        else if (h && h.kind === 'arrow') text = plural(h.a[3], h.a[2] === MESSAGE ? 'MPI message' : 'transfer') + ', ' +
            fmtBytes(h.a[4]);
        if (!text) { tip.style.display = 'none'; return; }
        tip.textContent = text + '\n(click for details)';
        tip.style.display = 'block';
        var x = ev.clientX + 14, y = ev.clientY + 14;
        if (x + tip.offsetWidth > window.innerWidth) x = ev.clientX - tip.offsetWidth - 8;
        if (y + tip.offsetHeight > window.innerHeight) y = ev.clientY - tip.offsetHeight - 8;
        tip.style.left = x + 'px';
        tip.style.top = y + 'px';
    }

    document.addEventListener('keydown', function (ev) {
        var tag = ev.target && ev.target.tagName;
        if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
        var span = v1 - v0;
        if (ev.key === '+' || ev.key === '=') zoomBy(1 / 1.6, null);
        else if (ev.key === '-' || ev.key === '_') zoomBy(1.6, null);
        else if (ev.key === 'ArrowLeft') panBy(-span / 8);
        else if (ev.key === 'ArrowRight') panBy(span / 8);
        else if (ev.key === '0' || ev.key === 'Home') reset();
        else if (ev.key === 'Escape') { range = null; selected = null; later(); }
        else return;
        ev.preventDefault();
    });
    var resizePending = false;
    window.addEventListener('resize', function () {
        if (resizePending) return;
        resizePending = true;
        window.requestAnimationFrame(function () { resizePending = false; resize(); });
    });

    relayout();
})();
