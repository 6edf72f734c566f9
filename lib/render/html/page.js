// SPDX-License-Identifier: LGPL-2.1
//
// trace-cmd-alloc-tag report -f html: draws the page from its embedded data
// (the JSON report in #atag-report, the timelines and lifetime histograms in
// #atag-timelines) with d3 (v5, embedded before this script). Every figure it
// shows in the summary also goes into a data- attribute, for tests to read.
(function () {
	'use strict';

	var report = JSON.parse(document.getElementById('atag-report').textContent);
	var extra = JSON.parse(document.getElementById('atag-timelines').textContent);
	var timelines = extra.timelines || [];
	var color = d3.scaleOrdinal(d3.schemeCategory10);

	// ------------------------------------------------------------ formatting

	function bytes(v) {
		var units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'], i = -1;

		if (v < 1024)
			return v + ' B';
		do {
			v /= 1024;
			i++;
		} while (v >= 1024 && i < units.length - 1);
		return v.toFixed(v < 10 ? 2 : 1) + ' ' + units[i];
	}

	function duration(ns) {
		if (ns === null || ns === undefined)
			return '';
		if (ns < 1e3)
			return ns + ' ns';
		if (ns < 1e6)
			return (ns / 1e3).toFixed(1) + ' us';
		if (ns < 1e9)
			return (ns / 1e6).toFixed(1) + ' ms';
		return (ns / 1e9).toFixed(2) + ' s';
	}

	function seconds(ns) {
		return (ns / 1e9).toFixed(6);
	}

	// the call site as the text report names it: "function file:line [module]"
	function siteName(t) {
		var s;

		if (t.site)
			return t.site;
		if (!t.function)
			return t.tag;
		s = t.function;
		if (t.offset !== null && t.offset !== undefined && !t.file)
			s += '+0x' + t.offset.toString(16);
		if (t.file)
			s += ' ' + t.file + (t.line !== null && t.line !== undefined ? ':' + t.line : '');
		if (t.module)
			s += ' [' + t.module + ']';
		return s;
	}

	function setFigure(id, text, attrs) {
		var el = d3.select('#' + id).text(text);

		Object.keys(attrs || {}).forEach(function (k) {
			el.attr('data-' + k, attrs[k]);
		});
	}

	// ------------------------------------------------------------ summary and notes

	/* One row a source: its own figures, never added to another source's. */
	function glance() {
		var rows = d3.select('#glance tbody').selectAll('tr').data(report.sources)
			.enter().append('tr')
			.attr('id', function (s) { return 'glance-' + s.source; })
			.attr('data-source', function (s) { return s.source; });

		function cell(text, attrs) {
			rows.append('td').each(function (s) {
				var td = d3.select(this), a = attrs(s);

				td.text(text(s));
				Object.keys(a).forEach(function (k) { td.attr('data-' + k, a[k]); });
			});
		}
		function top(s) {
			return report.tags.filter(function (t) { return t.source === s.source; })[0];
		}
		function peak(s) {
			return timelines.filter(function (t) { return t.source === s.source; })[0];
		}
		cell(function (s) { return s.source; }, function () { return {}; });
		cell(function (s) { return d3.format(',')(s.totals.allocs); },
		     function (s) { return { count: s.totals.allocs }; });
		cell(function (s) { return d3.format(',')(s.totals.frees); },
		     function (s) { return { count: s.totals.frees }; });
		cell(function (s) {
			return bytes(s.totals.live_bytes) + ' in ' + d3.format(',')(s.totals.live);
		}, function (s) { return { bytes: s.totals.live_bytes, count: s.totals.live }; });
		cell(function (s) {
			return s.totals.live_suspects === null ? 'unknown' :
				d3.format(',')(s.totals.live_suspects);
		}, function (s) { return { count: s.totals.live_suspects }; });
		cell(function (s) {
			var tl = peak(s);

			return tl ? bytes(tl.peak.live_bytes) + ' at ' + seconds(tl.peak.ts) + ' s' :
				    'no timeline';
		}, function (s) {
			var tl = peak(s);

			return tl ? { bytes: tl.peak.live_bytes, ts: tl.peak.ts } : {};
		});
		cell(function (s) {
			var t = top(s);

			return t ? siteName(t) + ' (' + bytes(t.live_bytes) + ')' : 'no call site';
		}, function (s) {
			var t = top(s);

			return t ? { 'function': t.function || '', bytes: t.live_bytes } : {};
		});
	}

	function summary() {
		var files = report.files.map(function (f) { return f.path; });

		d3.select('#title-files').text(files.join(', '));
		d3.select('#completeness')
			.classed('complete', report.complete)
			.classed('incomplete', !report.complete)
			.attr('data-complete', report.complete)
			.text(report.complete ? 'data complete' :
			      'data incomplete: see the notes below');
		glance();
	}

	function list(parent, cls, items) {
		if (!items.length)
			return;
		parent.append('ul').attr('class', cls).selectAll('li').data(items)
			.enter().append('li').text(function (d) { return d; });
	}

	function notes() {
		var body = d3.select('#notes-body'), rows = [];

		list(body, 'notices', report.notices);
		list(body, 'remarks', report.remarks);
		report.files.forEach(function (f) {
			rows.push(f.path + ': ' + d3.format(',')(f.records) + ' records, ' +
				  duration(f.last_ts - f.first_ts) + ' from ' + seconds(f.first_ts) +
				  ' s' + (f.truncated ? ' (truncated)' : '') +
				  (f.recording ? '; scope: the workload (' +
				   f.recording.tasks.workload + ' tasks)' : '; scope: every task'));
		});
		report.sources.forEach(function (s) {
			var ex = s.excluded, left = 0;

			Object.keys(ex).forEach(function (k) { left += ex[k].allocs; });
			rows.push(s.source + ': ' + d3.format(',')(s.totals.unmatched_frees) +
				  ' frees of allocations made before the trace (unmatched), ' +
				  d3.format(',')(s.totals.replaced) +
				  ' allocations reused while live (their frees were not traced), ' +
				  d3.format(',')(left) + ' allocations of tasks out of scope' +
				  (s.hidden_tags ? ', ' + s.hidden_tags + ' call sites not selected' : ''));
		});
		if (report.completeness)
			rows.push('counters check: ' + report.completeness.complete + ' call sites ' +
				  'complete, ' + report.completeness.incomplete + ' incomplete, ' +
				  report.completeness.reshaped + ' reshaped');
		list(body, 'facts', rows);
	}

	// ------------------------------------------------------------ timelines

	var margin = { top: 10, right: 20, bottom: 30, left: 80 };

	function timelineChart(tl, i) {
		var div = d3.select('#timeline-charts').append('div').attr('class', 'timeline')
			.attr('data-index', i);
		var width = Math.max(600, div.node().clientWidth || 1100), height = 300;
		var shown = tl.sites.slice(0, 8), band;
		var x, y, svg, g, line, t0 = tl.start_ts, n = tl.buckets, series;

		div.append('h3').text(tl.trace + ', ' + tl.source + ': ' + n + ' buckets of ' +
				      duration(tl.bucket_ns) + ', peak ' + bytes(tl.peak.live_bytes));
		if (!n) {
			div.append('p').text('no allocation in this timeline');
			return;
		}
		function xAt(k) {
			return (k + 1) * tl.bucket_ns / 1e9;
		}
		x = d3.scaleLinear().domain([0, xAt(n - 1)]).range([0, width - margin.left -
									margin.right]);
		y = d3.scaleLinear().domain([0, d3.max(tl.total.max_live_bytes) || 1]).nice()
			.range([height - margin.top - margin.bottom, 0]);
		svg = div.append('svg').attr('class', 'chart').attr('width', width)
			.attr('height', height);
		g = svg.append('g').attr('transform', 'translate(' + margin.left + ',' +
					 margin.top + ')');
		g.append('g').attr('transform', 'translate(0,' + y.range()[0] + ')')
			.call(d3.axisBottom(x).ticks(10).tickFormat(function (s) {
				return s + ' s';
			}));
		g.append('g').call(d3.axisLeft(y).ticks(6).tickFormat(bytes));
		line = d3.line().curve(d3.curveStepBefore)
			.x(function (d, k) { return x(xAt(k)); })
			.y(function (d) { return y(d); });
		// the most inside each bucket: the peak shows even between bucket ends
		band = d3.area().curve(d3.curveStepBefore)
			.x(function (d, k) { return x(xAt(k)); })
			.y0(function (d, k) { return y(tl.total.live_bytes[k]); })
			.y1(function (d) { return y(d); });
		g.append('path').attr('class', 'total-max').attr('d', band(tl.total.max_live_bytes))
			.append('title').text('total: the most inside each bucket');
		series = shown.map(function (s, k) {
			return { name: s.site, values: s.live_bytes, color: color(k) };
		});
		g.selectAll('path.series').data(series).enter().append('path')
			.attr('class', 'series')
			.attr('stroke', function (d) { return d.color; })
			.attr('d', function (d) { return line(d.values); })
			.append('title').text(function (d) { return d.name; });
		g.append('path').attr('class', 'total').attr('d', line(tl.total.live_bytes))
			.append('title').text('total');
		g.append('line').attr('class', 'peak-line')
			.attr('x1', x((tl.peak.ts - t0) / 1e9)).attr('x2', x((tl.peak.ts - t0) / 1e9))
			.attr('y1', 0).attr('y2', y.range()[0]);
		div.append('div').attr('class', 'legend').selectAll('div')
			.data([{ name: 'total (shaded: the most inside each bucket)',
				  color: '#222' }].concat(series)).enter()
			.append('div')
			.each(function (d) {
				var el = d3.select(this);

				el.append('span').attr('class', 'swatch')
					.style('background', d.color);
				el.append('span').text(d.name);
			});
	}

	function peakTables(tl, i) {
		var div = d3.select('#peak-body').append('div').attr('class', 'peak')
			.attr('data-index', i), table, tr;

		div.append('h3').text(tl.trace + ', ' + tl.source + ': ' + bytes(tl.peak.live_bytes) +
				      ' live at ' + seconds(tl.peak.ts) + ' s');
		table = div.append('table').attr('class', 'peak-sites');
		table.append('thead').append('tr').selectAll('th')
			.data(['call site', 'live bytes at the peak', 'share']).enter()
			.append('th').attr('class', function (d, k) { return k ? null : 'text'; })
			.text(function (d) { return d; });
		tr = table.append('tbody').selectAll('tr').data(tl.peak.sites).enter().append('tr')
			.attr('data-site', function (d) { return d.site; });
		tr.append('td').attr('class', 'text site').text(function (d) { return d.site; });
		tr.append('td').attr('data-value', function (d) { return d.live_bytes; })
			.text(function (d) { return bytes(d.live_bytes); });
		tr.append('td').text(function (d) {
			return (100 * d.live_bytes / (tl.peak.live_bytes || 1)).toFixed(1) + ' %';
		});
		div.append('h3').text('stacks at the peak');
		tr = div.append('table').attr('class', 'peak-stacks').append('tbody').selectAll('tr')
			.data(tl.peak.stacks).enter().append('tr');
		tr.append('td').attr('data-value', function (d) { return d.live_bytes; })
			.text(function (d) { return bytes(d.live_bytes); });
		tr.append('td').attr('class', 'text').each(function (d) {
			var det = d3.select(this).append('details');

			det.append('summary').text(d.site);
			det.append('div').attr('class', 'stack-frames')
				.text(d.frames.length ? d.frames.join('\n') : '(no stack)');
		});
	}

	// ------------------------------------------------------------ flame graphs

	/*
	 * A report of more than one source (slab and page events, whose bytes overlap):
	 * each source a tower of its own under the root, named for it.
	 */
	function stackTree(key) {
		var mixed = report.sources.length > 1;
		var root = { name: mixed ? 'all sources (each apart: slab and page bytes overlap)' :
				 'all', children: [], index: {} };

		function child(node, name) {
			var c = node.index[name];

			if (!c) {
				c = { name: name, children: [], index: {}, value: 0 };
				node.index[name] = c;
				node.children.push(c);
			}
			return c;
		}
		/*
		 * Sampled stacks come with an estimate of the call site's allocations they
		 * stand for; the allocations without a stack then carry what the estimates
		 * leave of the call site's.
		 */
		function value(t, s, sampled) {
			if (s.estimate)
				return s.estimate[key] || 0;
			if (s.estimate === null)
				return Math.max(0, t[key] - sampled);
			return s[key] || 0;
		}
		report.tags.forEach(function (t) {
			var site = siteName(t), sampled = 0;

			t.stacks.forEach(function (s) {
				if (s.estimate)
					sampled += s.estimate[key] || 0;
			});
			t.stacks.forEach(function (s) {
				var node = root, k, v = value(t, s, sampled);

				if (!v)
					return;
				if (mixed)
					node = child(node, '[' + t.source + ']');
				for (k = s.frames.length - 1; k >= 0; k--)
					node = child(node, s.frames[k]);
				node = child(node, site);
				node.value += v;
			});
		});
		return root;
	}

	function flame(id, key) {
		var div = d3.select('#' + id), rowH = 17, tree = stackTree(key), root, svg, cell, x;
		var width = Math.max(600, div.node().clientWidth || 1100);

		root = d3.hierarchy(tree, function (d) { return d.children; })
			.sum(function (d) { return d.value || 0; })
			.sort(function (a, b) { return b.value - a.value; });
		div.attr('data-total', root.value || 0);
		if (!root.value) {
			div.append('p').text('nothing to draw');
			return;
		}
		d3.partition().size([width, (root.height + 1) * rowH])(root);
		x = d3.scaleLinear().domain([0, width]).range([0, width]);
		svg = div.append('svg').attr('width', width).attr('height', (root.height + 1) * rowH);
		cell = svg.selectAll('g').data(root.descendants().filter(function (d) {
			return d.x1 - d.x0 >= 0.5;
		})).enter().append('g');
		function place(t) {
			cell.attr('transform', function (d) {
				return 'translate(' + x(d.x0) + ',' + d.y0 + ')';
			});
			cell.select('rect').attr('width', function (d) {
				return Math.max(0, x(d.x1) - x(d.x0));
			});
			cell.select('text').text(function (d) {
				var w = x(d.x1) - x(d.x0), n = Math.floor(w / 6);

				return n < 3 ? '' : d.data.name.length > n ?
					d.data.name.slice(0, n - 1) + '\u2026' : d.data.name;
			});
			return t;
		}
		cell.append('rect').attr('height', rowH - 1)
			.attr('fill', function (d) {
				return d.depth ? d3.interpolateYlOrRd(0.25 + 0.6 * ((d.data.name.length * 7) %
										      10) / 10) : '#ccc';
			})
			.on('click', function (d) {
				x.domain(d.depth ? [d.x0, d.x1] : [0, width]);
				place();
			})
			.append('title').text(function (d) {
				return d.data.name + '\n' + bytes(d.value) + ' (' +
					(100 * d.value / root.value).toFixed(1) + ' %)';
			});
		cell.append('text').attr('x', 3).attr('y', rowH - 5);
		place();
	}

	// ------------------------------------------------------------ tables

	function sortable(table, columns, rows) {
		var thead = table.select('thead'), tbody = table.select('tbody'), tr;
		var state = { key: null, desc: true };

		thead.append('tr').selectAll('th').data(columns).enter().append('th')
			.attr('data-key', function (c) { return c.key; })
			.attr('class', function (c) { return c.text ? 'text' : null; })
			.text(function (c) { return c.title; })
			.on('click', function (c) {
				state.desc = state.key === c.key ? !state.desc : !c.text;
				state.key = c.key;
				tbody.selectAll('tr').sort(function (a, b) {
					var va = c.value(a), vb = c.value(b), r;

					r = va < vb ? -1 : va > vb ? 1 : 0;
					return state.desc ? -r : r;
				});
				thead.selectAll('th')
					.classed('sorted-desc', function (h) {
						return h.key === c.key && state.desc;
					})
					.classed('sorted-asc', function (h) {
						return h.key === c.key && !state.desc;
					});
			});
		tr = tbody.selectAll('tr').data(rows).enter().append('tr');
		columns.forEach(function (c) {
			tr.append('td').attr('data-key', c.key)
				.attr('class', c.text ? 'text' + (c.key === 'site' ? ' site' : '') : null)
				.attr('data-value', function (d) {
					var v = c.value(d);

					return v === null || v === undefined ? '' : v;
				})
				.text(function (d) {
					var v = c.value(d);

					return v === null || v === undefined ? '' : c.format ? c.format(v) : v;
				});
		});
		return tr;
	}

	function num(key, title, format) {
		return { key: key, title: title, format: format || d3.format(','),
			 value: function (d) { return d[key]; } };
	}

	function life(key, title) {
		return { key: 'lifetime_' + key, title: title, format: duration,
			 value: function (d) { return d.lifetime_ns[key]; } };
	}

	function siteTable() {
		var tr = sortable(d3.select('#site-table'), [
			{ key: 'site', title: 'call site', text: true, value: siteName },
			{ key: 'source', title: 'source', text: true,
			  value: function (d) { return d.source; } },
			num('allocs', 'allocs'), num('frees', 'frees'), num('live', 'live'),
			num('live_bytes', 'live bytes', bytes),
			num('peak_live_bytes', 'peak live', bytes),
			num('bytes_alloced', 'allocated', bytes),
			num('unmatched_frees', 'unmatched'), num('replaced', 'reused'),
			life('p50', 'lifetime p50'), life('p99', 'p99'), life('max', 'max')
		], report.tags);

		tr.attr('data-site', siteName).attr('data-function', function (d) {
			return d.function || '';
		});
	}

	function liveTable() {
		/* the suspects first, oldest first; the explained after them */
		var live = report.live.filter(function (l) { return l.suspect; })
			.concat(report.live.filter(function (l) { return !l.suspect; }));

		sortable(d3.select('#live-table'), [
			{ key: 'suspect', title: 'leak suspect', text: true,
			  value: function (d) { return d.suspect ? 'suspect' : d.suspect_why; } },
			{ key: 'source', title: 'source', text: true,
			  value: function (d) { return d.source; } },
			{ key: 'site', title: 'call site', text: true,
			  value: function (d) { return d.function || d.tag; } },
			num('bytes', 'bytes', bytes),
			{ key: 'age_ns', title: 'age', format: duration,
			  value: function (d) { return d.age_ns; } },
			num('pid', 'pid', String),
			{ key: 'comm', title: 'comm', text: true,
			  value: function (d) { return d.comm || ''; } },
			{ key: 'task', title: 'task', text: true,
			  value: function (d) {
				return d.task_running === null ? '' : d.task_running ? 'running' : 'exited';
			  } },
			{ key: 'ptr', title: 'address', text: true,
			  value: function (d) { return d.ptr; } },
			{ key: 'frames', title: 'stack', text: true,
			  value: function (d) { return d.frames.slice(0, 4).join(' < '); } }
		], live);
		if (!report.live.length)
			d3.select('#leaks').append('p').text('nothing was live at the end');
	}

	// ------------------------------------------------------------ lifetime histograms

	function histograms() {
		var hists = extra.lifetimes || [], shown = 0;

		report.tags.forEach(function (t, i) {
			var h = hists[i] || [], w = 260, ht = 120, m = { t: 18, r: 6, b: 22, l: 44 };
			var x, y, g, svg, lo, hi, es = [], k;

			if (!h.length || shown >= 12)
				return;
			shown++;
			lo = h[0][0];
			hi = h[h.length - 1][0];
			for (k = lo; k <= hi; k++)
				es.push(k);
			x = d3.scaleBand().domain(es).range([0, w - m.l - m.r]).padding(0.1);
			y = d3.scaleLinear().domain([0, d3.max(h, function (d) { return d[1]; })])
				.nice().range([ht - m.t - m.b, 0]);
			svg = d3.select('#hist-charts').append('svg').attr('class', 'hist')
				.attr('width', w).attr('height', ht).attr('data-site', siteName(t))
				.attr('data-source', t.source);
			svg.append('text').attr('class', 'title').attr('x', 2).attr('y', 12)
				.text((report.sources.length > 1 ? t.source + ': ' : '') +
				      siteName(t).slice(0, 44));
			g = svg.append('g').attr('transform', 'translate(' + m.l + ',' + m.t + ')');
			g.selectAll('rect').data(h).enter().append('rect').attr('class', 'bar')
				.attr('x', function (d) { return x(d[0]); })
				.attr('width', x.bandwidth())
				.attr('y', function (d) { return y(d[1]); })
				.attr('height', function (d) { return y.range()[0] - y(d[1]); })
				.append('title').text(function (d) {
					return d3.format(',')(d[1]) + ' lifetimes of ' +
						duration(Math.pow(2, d[0])) + ' to ' +
						duration(Math.pow(2, d[0] + 1));
				});
			g.append('g').attr('transform', 'translate(0,' + y.range()[0] + ')')
				.call(d3.axisBottom(x).tickValues(es.filter(function (e, j) {
					return j % Math.ceil(es.length / 4) === 0;
				})).tickFormat(function (e) { return duration(Math.pow(2, e)); }));
			g.append('g').call(d3.axisLeft(y).ticks(Math.min(3, y.domain()[1]))
					   .tickFormat(d3.format('~s')));
		});
		if (!shown)
			d3.select('#hist-charts').append('p').text('no lifetimes: nothing was freed');
	}

	summary();
	notes();
	timelines.forEach(timelineChart);
	timelines.forEach(peakTables);
	if (!timelines.length)
		d3.select('#timeline-charts').append('p').text('no allocation was read');
	flame('flame-alloc', 'bytes_alloced');
	flame('flame-live', 'live_bytes');
	siteTable();
	liveTable();
	histograms();
	// how long the page took from navigation to the last drawing (bench/ reads it)
	document.body.setAttribute('data-render-ms', Math.round(performance.now()));
	document.body.setAttribute('data-rendered', 'yes');
}());
