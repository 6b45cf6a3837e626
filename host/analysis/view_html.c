/**
 * \file view_html.c
 * \brief The HTML page of `offtrace view`: the SVG inline, a stylesheet and
 *        a small script, nothing loaded from anywhere (the page must work
 *        offline and from a mail attachment).
 *
 * The script zooms horizontally (wheel), pans (drag) and resets
 * (double-click) by moving the plot's elements from their drawn positions
 * (clipping the plot, which the static SVG need not) and redrawing the axis
 * ticks; it shows each element's data-tip as a styled tooltip. Zooming stretches what was drawn: marks of merged small
 * regions stay merged, which the page says; --from/--to redraws a range.
 */
#include <stdio.h>

#include "view_model.h"

static const char style[] =
    "body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;margin:8px;color:#222}\n"
    "#ot-hint{font-size:12px;color:#555;margin:0 0 6px 0}\n"
    "#ot-wrap{overflow:auto}\n"
    "#ot-view{cursor:grab;user-select:none;-webkit-user-select:none}\n"
    "#ot-view.dragging{cursor:grabbing}\n"
    "#ot-tip{position:fixed;display:none;pointer-events:none;background:#fffff2;border:1px solid #999;"
    "padding:3px 7px;font-size:12px;white-space:pre;box-shadow:1px 1px 4px rgba(0,0,0,.25);z-index:10}\n";

/* Plain ES5, single quotes only (it sits in a C string). Tooltips are the
 * elements' data-tip attributes. */
static const char script[] =
    "(function(){\n"
    "var svg=document.getElementById('ot-view'),tip=document.getElementById('ot-tip');\n"
    "var d=svg.dataset,px=+d.plotX,pw=+d.plotW,from=+d.fromNs,to=+d.toNs,ay=+d.axisY,bottom=+d.rowsBottom;\n"
    "var plot=document.getElementById('ot-plot'),items=[],v0=0,v1=pw,drag=null,pending=false,NS=svg.namespaceURI;\n"
    "plot.setAttribute('clip-path','url(#ot-plot-clip)');\n"
    "plot.querySelectorAll('rect').forEach(function(e){\n"
    "  items.push([e,+e.getAttribute('x'),+e.getAttribute('width')]);});\n"
    "plot.querySelectorAll('path').forEach(function(e){\n"
    "  var n=e.getAttribute('d').match(/-?[0-9.]+/g).map(Number);items.push([e,n[0],n[1],n[2],n[3]]);});\n"
    "function map(x){return px+(x-px-v0)*pw/(v1-v0);}\n"
    "function arrow(x0,y0,x1,y1){var dx=x1-x0,dy=y1-y0,l=Math.sqrt(dx*dx+dy*dy)||1,ux=dx/l,uy=dy/l,\n"
    "  bx=x1-ux*6,by=y1-uy*6;return 'M'+x0+','+y0+'L'+x1+','+y1+'M'+x1+','+y1+'L'+(bx-uy*3)+','+(by+ux*3)+\n"
    "  'L'+(bx+uy*3)+','+(by-ux*3)+'Z';}\n"
    "function step(span,n){var m=[1,2,5];\n"
    "  for(var dec=1;;dec*=10)for(var i=0;i<3;i++)if(span/(m[i]*dec)<=n)return m[i]*dec;}\n"
    "function label(t,s,max){if(t===0)return '0';\n"
    "  var u=max>=1e9?1e9:max>=1e6?1e6:max>=1e3?1e3:1,n=u===1e9?'s':u===1e6?'ms':u===1e3?'\\u00b5s':'ns';\n"
    "  var dec=0,p=u;while(p>1&&s%p){p/=10;dec++;}return (t/u).toFixed(dec)+' '+n;}\n"
    "function el(name,attrs,text){var e=document.createElementNS(NS,name);\n"
    "  for(var k in attrs)e.setAttribute(k,attrs[k]);if(text)e.textContent=text;return e;}\n"
    "function axis(){var g=document.getElementById('ot-axis');\n"
    "  g.querySelectorAll('[data-k=tick],[data-k=grid],[data-k=mark]').forEach(function(e){\n"
    "    e.parentNode.removeChild(e);});\n"
    "  var t0=from+(to-from)*v0/pw,t1=from+(to-from)*v1/pw,s=step(Math.max(t1-t0,1),Math.floor(pw/110));\n"
    "  for(var t=Math.ceil(t0/s)*s;t<=t1;t+=s){var x=px+(t-t0)/(t1-t0)*pw;\n"
    "    g.appendChild(el('line',{'data-k':'grid',x1:x,x2:x,y1:ay,y2:bottom,stroke:'#e4e4e4'}));\n"
    "    g.appendChild(el('line',{'data-k':'mark',x1:x,x2:x,y1:ay-5,y2:ay,stroke:'#555555'}));\n"
    "    var anchor=x>px+pw-20?'end':x<px+20?'start':'middle';\n"
    "    g.appendChild(el('text',{'data-k':'tick',x:x,y:ay-9,'text-anchor':anchor},\n"
    "      label(t,s,t1)));}}\n"
    "function redraw(){pending=false;items.forEach(function(it){var e=it[0];\n"
    "  if(it.length>3)e.setAttribute('d',arrow(map(it[1]),it[2],map(it[3]),it[4]));\n"
    "  else{var a=map(it[1]),b=map(it[1]+it[2]);e.setAttribute('x',a);e.setAttribute('width',Math.max(b-a,0.5));}});\n"
    "  axis();}\n"
    "function later(){if(!pending){pending=true;window.requestAnimationFrame(redraw);}}\n"
    "function svgX(ev){var p=svg.createSVGPoint();p.x=ev.clientX;p.y=ev.clientY;\n"
    "  return p.matrixTransform(svg.getScreenCTM().inverse()).x;}\n"
    "function clamp(){if(v1-v0>pw){v0=0;v1=pw;return;}if(v0<0){v1-=v0;v0=0;}if(v1>pw){v0-=v1-pw;v1=pw;}}\n"
    "svg.addEventListener('wheel',function(ev){var x=svgX(ev);if(x<px||x>px+pw)return;ev.preventDefault();\n"
    "  var k=ev.deltaY<0?0.8:1.25,c=v0+(x-px)/pw*(v1-v0);\n"
    "  if(k<1&&(v1-v0)/pw*(to-from)<100)return;\n"
    "  v0=c-(c-v0)*k;v1=c+(v1-c)*k;clamp();later();},{passive:false});\n"
    "svg.addEventListener('mousedown',function(ev){drag={x:svgX(ev),v0:v0,v1:v1};svg.classList.add('dragging');});\n"
    "window.addEventListener('mouseup',function(){drag=null;svg.classList.remove('dragging');});\n"
    "svg.addEventListener('dblclick',function(){v0=0;v1=pw;later();});\n"
    "svg.addEventListener('mousemove',function(ev){\n"
    "  if(drag){var dx=(svgX(ev)-drag.x)*(drag.v1-drag.v0)/pw;v0=drag.v0-dx;v1=drag.v1-dx;clamp();later();\n"
    "    tip.style.display='none';return;}\n"
    "  var t=ev.target.getAttribute&&ev.target.getAttribute('data-tip');\n"
    "  if(!t){tip.style.display='none';return;}\n"
    "  tip.textContent=t;tip.style.display='block';\n"
    "  var x=ev.clientX+14,y=ev.clientY+14;if(x+tip.offsetWidth>window.innerWidth)x=ev.clientX-tip.offsetWidth-8;\n"
    "  if(y+tip.offsetHeight>window.innerHeight)y=ev.clientY-tip.offsetHeight-8;\n"
    "  tip.style.left=x+'px';tip.style.top=y+'px';});\n"
    "svg.addEventListener('mouseleave',function(){tip.style.display='none';});\n"
    "})();\n";

int ot_view_write_html(const ot_view *v, FILE *f)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>offtrace view: ", f);
    ot_view_xml_text(f, v->title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
    fputs("<p id=\"ot-hint\">Wheel over the plot: zoom in time &middot; drag: pan &middot; double-click: "
          "whole range &middot; hover: details. Zooming stretches what was drawn; for detail inside the merged "
          "marks (the lower bars), draw that range again with <code>offtrace view --from T --to T</code>.</p>\n"
          "<div id=\"ot-wrap\">\n",
          f);
    if (ot_view_write_svg(v, f, 1) != 0)
        return -1;
    fprintf(f, "</div>\n<div id=\"ot-tip\"></div>\n<script>\n%s</script>\n</body>\n</html>\n", script);
    return ferror(f) ? -1 : 0;
}
