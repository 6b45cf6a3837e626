'use strict';
/*
 * Frame times of the view page on a large run (docs/view.md, "The HTML page"):
 *
 *   node tests/browser/measure.js URL                 # a page: file://…/run.html or offtrace view --serve's URL
 *   node tests/browser/measure.js --synthetic EVENTS [THREADS]
 *                                                     # a synthetic run (fixture.js) served with tiles on demand
 *
 * Zooms with the wheel from the whole run into its middle (40 steps, each
 * waiting for its tiles), pans by dragging at three depths, and prints what
 * the page says it drew in each frame (#ot-status data-frame-ms): median,
 * 95th percentile and maximum, with the largest frame's bar and mark counts.
 */
const http = require('http');
const {chromium} = require('playwright-core');
const fixture = require('./fixture.js');

async function syntheticServer(events, threads) {
    const per = 12 + 2 * threads * 3;   /* events per iteration of makeRun, near enough */
    let t = Date.now();
    const run = fixture.makeRun(Math.ceil(events / per), 11, threads);
    const data = fixture.makeData(run, {serve: true, maxLevel: 2, title: 'synthetic-' + run.events});
    console.log('synthetic run: ' + run.events + ' events, ' + run.rows.length + ' rows, made in ' + (Date.now() - t) + ' ms');
    const cache = {};
    const server = http.createServer((q, r) => {
        if (q.url === '/') { r.writeHead(200, {'content-type': 'text/html'}); r.end(fixture.page(data)); return; }
        const m = /^\/tile\/(\d+)\/(\d+)\.json$/.exec(q.url);
        if (!m) { r.writeHead(404); r.end(); return; }
        const key = m[1] + '/' + m[2];
        if (!cache[key]) { const tile = fixture.bucket(run, +m[1], +m[2]); delete tile.empty; cache[key] = JSON.stringify(tile); }
        r.writeHead(200, {'content-type': 'application/json'});
        r.end(cache[key]);
    });
    await new Promise((res) => server.listen(0, '127.0.0.1', res));
    return {server, url: 'http://127.0.0.1:' + server.address().port + '/'};
}

function stats(list) {
    const v = list.map((f) => f.ms).sort((a, b) => a - b);
    const worst = list.reduce((a, b) => (b.ms > a.ms ? b : a));
    return 'median ' + v[v.length >> 1].toFixed(1) + ' ms, p95 ' + v[Math.floor(v.length * 0.95)].toFixed(1) +
        ' ms, max ' + v[v.length - 1].toFixed(1) + ' ms over ' + v.length + ' frames (slowest: ' + worst.status + ')';
}

(async () => {
    const args = process.argv.slice(2);
    let url = args[0], server = null;
    if (args[0] === '--synthetic') ({server, url} = await syntheticServer(Number(args[1] || 1e6), Number(args[2] || 8)));
    const browser = await chromium.launch({executablePath: '/usr/bin/chromium', args: ['--no-sandbox']});
    const page = await browser.newPage({viewport: {width: 1600, height: 1000}});
    page.on('pageerror', (e) => console.log('page error: ' + e.message));
    let t = Date.now();
    await page.goto(url);
    await page.waitForSelector('#ot-status');
    console.log('page loaded and first frame drawn in ' + (Date.now() - t) + ' ms');
    const frame = async () => {
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        await page.waitForFunction(() => !/Loading/.test(document.getElementById('ot-note').textContent), null, {timeout: 20000});
        return page.$eval('#ot-status', (e) => ({ms: Number(e.dataset.frameMs), status: e.textContent}));
    };
    const box = await page.$eval('.ot-canvas', (c) => { const r = c.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; });
    const zoom = [], pan = [];
    const x = box.x + box.w * 0.5003, y = box.y + Math.min(box.h / 2, 300);
    await page.mouse.move(x, y);
    t = Date.now();
    for (let i = 0; i < 40; i++) {
        await page.mouse.wheel(0, -300);
        zoom.push(await frame());
        if ([5, 15, 30].includes(i)) {
            await page.mouse.move(x, y);
            await page.mouse.down();
            const step = async (to) => {
                await page.mouse.move(to, y);
                pan.push(await frame());
            };
            for (let j = 1; j <= 10; j++) await step(x + j * 15);
            for (let j = 9; j >= 0; j--) await step(x + j * 15);
            await page.mouse.up();
        }
    }
    console.log('zoom (40 wheel steps, ' + ((Date.now() - t) / 1000).toFixed(1) + ' s with tile fetches): ' + stats(zoom));
    console.log('pan (drag at three depths): ' + stats(pan));
    /* whole frames, in the page: a key press (pan by 1/8) to the frame after the one it drew, tiles there */
    const keyFrames = await page.evaluate(async () => {
        const next = () => new Promise((r) => requestAnimationFrame(() => r()));
        const out = [];
        for (let i = 0; i < 30; i++) {
            const key = i % 10 < 5 ? 'ArrowRight' : 'ArrowLeft';
            await next();
            const t0 = performance.now();
            document.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
            await next();
            await next();
            out.push(performance.now() - t0);
        }
        return out.sort((a, b) => a - b);
    });
    console.log('key pan at the deepest zoom, event to the frame after it was drawn (includes one frame\'s wait): median ' +
        keyFrames[keyFrames.length >> 1].toFixed(1) + ' ms, max ' + keyFrames[keyFrames.length - 1].toFixed(1) + ' ms');
    console.log('deepest: ' + (await page.textContent('#ot-range')));
    await browser.close();
    if (server) server.close();
})();
