/* Placeholder of helper T's branch (the real page is helper P's): says what
 * the embedded data holds, so that the page is not blank. */
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('ot-data').textContent);
  var n = 0;
  for (var key in data.tiles) if (Object.prototype.hasOwnProperty.call(data.tiles, key)) n++;
  var p = document.createElement('p');
  p.textContent = data.title + ': ' + data.events + ' events, ' + data.rows.length + ' rows, ' + n + ' tiles';
  document.getElementById('ot-app').appendChild(p);
})();
