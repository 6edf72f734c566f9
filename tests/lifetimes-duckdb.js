// SPDX-License-Identifier: GPL-2.0
//
// lifetimes-duckdb.js: run the SQL of a file in an in-memory DuckDB, from the
// current directory (read_csv_auto paths are relative to it), and print each
// row of the result on a line, its values tab-separated (NULL as "-").
// DuckDB comes from the npm registry (@duckdb/node-api; its native library ships
// in @duckdb/node-bindings-linux-x64), installed by tests/t-lifetimes.sh into
// $ATAG_NPM_DIR.
//   node tests/lifetimes-duckdb.js QUERY.sql
'use strict';

const fs = require('fs');
const path = require('path');

const npm = process.env.ATAG_NPM_DIR || '/var/cache/trace-cmd-alloc-tag/npm';
const { DuckDBInstance } = require(path.join(npm, 'node_modules', '@duckdb', 'node-api'));

async function main() {
	const sql = fs.readFileSync(process.argv[2], 'utf8');
	const db = await DuckDBInstance.create(':memory:');
	const con = await db.connect();
	const result = await con.runAndReadAll(sql);

	for (const row of result.getRowsJson())
		console.log(row.map((v) => (v === null ? '-' : String(v))).join('\t'));
}

main().catch((e) => {
	console.error(`lifetimes-duckdb: ${e.message}`);
	process.exit(1);
});
