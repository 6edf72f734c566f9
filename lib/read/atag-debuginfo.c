// SPDX-License-Identifier: LGPL-2.1
/*
 * Source lines from the kernel's debug information, through elfutils' libdwfl.
 * See atag-debuginfo.h.
 *
 * vmlinux is reported to libdwfl first (offline, as the ET_EXEC it is); a module's
 * .ko the first time a lookup names it, after it (libdwfl lays relocatable files
 * out one after the other). Per file, the function symbols are indexed by name
 * once; lines are cached per (module, function, offset).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <glib.h>

#include "atag-debuginfo.h"
#include "atag-utils.h"

/* A function of a debug file; names defined more than once chain their candidates. */
struct cand {
	uint64_t	addr;
	uint64_t	size;
	struct cand	*next;
};

struct dmod {
	Dwfl_Module	*mod;		/* NULL: no file, or it could not be read */
	GHashTable	*syms;		/* name -> struct cand * */
	GSList		*cands;		/* every struct cand, to free them */
};

struct srcline {
	const char	*file;		/* in the string chunk; NULL: no line */
	int		line;
};

struct atag_debuginfo {
	Dwfl			*dwfl;
	Dwfl_Callbacks		callbacks;
	char			*vmlinux;
	char			**module_dirs;
	struct dmod		kernel;
	GHashTable		*modules;	/* module name -> struct dmod * */
	GHashTable		*module_files;	/* normalised name -> path; built on first need */
	GHashTable		*lines;		/* key string -> struct srcline * */
	GStringChunk		*strings;
	bool			has_base;
	uint64_t		kernel_bias;	/* running kernel address - vmlinux address */
};

static const char *const ko_suffixes[] = {
	".ko.debug", ".ko", ".ko.xz", ".ko.zst", ".ko.gz", NULL
};

/* ------------------------------------------------------------ finding files */

static char *default_vmlinux(const char *release)
{
	static const char *const fmt[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/boot/vmlinux-%s",
		"/lib/modules/%s/build/vmlinux",
		NULL
	};
	char *path;
	int i;

	if (!release || !*release || strchr(release, '/'))
		return NULL;
	for (i = 0; fmt[i]; i++) {
		path = g_strdup_printf(fmt[i], release);
		if (!access(path, R_OK))
			return path;
		g_free(path);
	}
	return NULL;
}

/* "ext4-foo.ko.xz" -> "ext4_foo"; NULL if not a module file name. */
static char *module_name_of(const char *base)
{
	size_t n = strlen(base), s;
	char *name, *p;
	int i;

	for (i = 0; ko_suffixes[i]; i++) {
		s = strlen(ko_suffixes[i]);
		if (n > s && !strcmp(base + n - s, ko_suffixes[i]))
			break;
	}
	if (!ko_suffixes[i])
		return NULL;
	name = g_strndup(base, n - s);
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/* nftw() has no context argument: the table being filled while a walk runs. */
static GHashTable *walk_table;

static int note_module_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char *name;

	if (flag != FTW_F)
		return 0;
	name = module_name_of(path + ftw->base);
	if (!name)
		return 0;
	/* the first file wins: .ko.debug before .ko within a directory is not promised */
	if (g_hash_table_contains(walk_table, name))
		g_free(name);
	else
		g_hash_table_insert(walk_table, name, g_strdup(path));
	return 0;
}

/*
 * Report the ELF file @path as module @name: opened without blocking and only if
 * it is a regular file (a FIFO named like a module must not stop a report). On
 * success libdwfl owns the descriptor (it closes it once read); NULL on failure.
 */
static Dwfl_Module *report_file(Dwfl *dwfl, const char *name, const char *path)
{
	int fd = atag_open_input(AT_FDCWD, path, 0);
	Dwfl_Module *mod;

	if (fd < 0)
		return NULL;
	mod = dwfl_report_offline(dwfl, name, path, fd);
	if (!mod)
		close(fd);
	return mod;
}

static void find_module_files(struct atag_debuginfo *di)
{
	int i;

	di->module_files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	walk_table = di->module_files;
	for (i = 0; di->module_dirs && di->module_dirs[i]; i++)
		nftw(di->module_dirs[i], note_module_file, 16, FTW_PHYS);
	walk_table = NULL;
}

/* ------------------------------------------------------------ symbols */

static void index_symbols(struct dmod *m)
{
	GElf_Addr addr;
	GElf_Sym sym;
	const char *name;
	struct cand *c;
	int i, n;

	m->syms = g_hash_table_new(g_str_hash, g_str_equal);
	n = m->mod ? dwfl_module_getsymtab(m->mod) : 0;
	for (i = 0; i < n; i++) {
		name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!name || !*name || (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		    GELF_ST_TYPE(sym.st_info) != STT_NOTYPE) ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		c = g_new0(struct cand, 1);
		c->addr = addr;
		c->size = sym.st_size;
		c->next = g_hash_table_lookup(m->syms, name);
		/* the names live as long as the module's ELF data */
		g_hash_table_insert(m->syms, (gpointer)name, c);
		m->cands = g_slist_prepend(m->cands, c);
	}
}

static void dmod_free(struct dmod *m)
{
	if (m->syms)
		g_hash_table_destroy(m->syms);
	g_slist_free_full(m->cands, g_free);
}

static void dmod_destroy(gpointer p)
{
	dmod_free(p);
	g_free(p);
}

/* The module @name, reported to libdwfl on first use; NULL-mod when it has no file. */
static struct dmod *get_module(struct atag_debuginfo *di, const char *module)
{
	struct dmod *m;
	const char *path;
	char *key, *p;

	if (!module)
		return &di->kernel;
	key = g_strdup(module);
	for (p = key; *p; p++)
		if (*p == '-')
			*p = '_';
	m = g_hash_table_lookup(di->modules, key);
	if (m) {
		g_free(key);
		return m;
	}
	m = g_new0(struct dmod, 1);
	g_hash_table_insert(di->modules, key, m);
	if (!di->module_files)
		find_module_files(di);
	path = g_hash_table_lookup(di->module_files, key);
	if (path) {
		dwfl_report_begin_add(di->dwfl);
		m->mod = report_file(di->dwfl, key, path);
		dwfl_report_end(di->dwfl, NULL, NULL);
	}
	index_symbols(m);
	return m;
}

/*
 * The candidate of @name that holds @offset: the one starting at @start when that is
 * known (not 0), else the only one large enough; NULL if none or several.
 */
static const struct cand *pick(const struct dmod *m, const char *name, uint64_t offset,
			       uint64_t start)
{
	const struct cand *c, *found = NULL;

	for (c = g_hash_table_lookup(m->syms, name); c; c = c->next) {
		if (start && c->addr == start)
			return c;
		if (c->size && offset >= c->size)
			continue;
		if (found)
			found = (const struct cand *)-1;
		else
			found = c;
	}
	return start || found == (const struct cand *)-1 ? NULL : found;
}

int atag_debuginfo_symbol(struct atag_debuginfo *di, const char *module, const char *name,
			  uint64_t *addr)
{
	const struct dmod *m = get_module(di, module);
	const struct cand *c = g_hash_table_lookup(m->syms, name);

	if (!c || c->next)
		return -ENOENT;
	*addr = c->addr;
	return 0;
}

void atag_debuginfo_set_kernel_base(struct atag_debuginfo *di, uint64_t text)
{
	uint64_t link;

	if (atag_debuginfo_symbol(di, NULL, "_text", &link) &&
	    atag_debuginfo_symbol(di, NULL, "_stext", &link))
		return;
	di->kernel_bias = text - link;
	di->has_base = true;
}

unsigned int atag_debuginfo_mismatch(struct atag_debuginfo *di, const char *const *names,
				     const uint64_t *addrs, unsigned int nr)
{
	unsigned int i, bad = 0;
	bool have_first = false;
	uint64_t a, first = 0, first_run = 0;

	for (i = 0; i < nr; i++) {
		if (atag_debuginfo_symbol(di, NULL, names[i], &a))
			continue;
		if (!have_first) {
			first = a;
			first_run = addrs[i];
			have_first = true;
			continue;
		}
		if (addrs[i] - first_run != a - first)
			bad++;
	}
	return bad;
}

/* ------------------------------------------------------------ lines */

/* The file as the kernel's build names it: relative to the build directory. */
static const char *tree_relative(Dwfl_Line *l, const char *file)
{
	const char *dir = dwfl_line_comp_dir(l);
	size_t n = dir ? strlen(dir) : 0;

	if (n && !strncmp(file, dir, n) && file[n] == '/')
		file += n + 1;
	while (!strncmp(file, "./", 2))
		file += 2;
	return file;
}

static struct srcline lookup(struct atag_debuginfo *di, const char *module, const char *name,
			     uint64_t offset, uint64_t addr, bool ret)
{
	struct srcline s = { NULL, 0 };
	const struct cand *c;
	const char *file;
	struct dmod *m;
	uint64_t a;
	Dwfl_Line *l;

	m = get_module(di, module);
	if (!m->mod)
		return s;
	/* vmlinux at a known offset: the function that starts where the address says */
	c = !module && di->has_base ? pick(m, name, offset, addr - offset - di->kernel_bias) : NULL;
	if (!c)
		c = pick(m, name, offset, 0);
	if (!c)
		return s;
	a = c->addr + offset;
	/* a return address: the call is the instruction before it */
	l = dwfl_module_getsrc(m->mod, ret && offset ? a - 1 : a);
	file = l ? dwfl_lineinfo(l, NULL, &s.line, NULL, NULL, NULL) : NULL;
	if (file && s.line > 0)
		s.file = g_string_chunk_insert_const(di->strings, tree_relative(l, file));
	return s;
}

int atag_debuginfo_line(struct atag_debuginfo *di, const char *module, const char *name,
			uint64_t offset, uint64_t addr, bool return_address, const char **file,
			int *line)
{
	struct srcline *s;
	char *key;

	/* the address too: two functions of one name differ only by it */
	key = g_strdup_printf("%s\x1f%s\x1f%llx\x1f%llx\x1f%d", module ? module : "", name,
			      (unsigned long long)offset, (unsigned long long)addr, return_address);
	s = g_hash_table_lookup(di->lines, key);
	if (!s) {
		s = g_new(struct srcline, 1);
		*s = lookup(di, module, name, offset, addr, return_address);
		g_hash_table_insert(di->lines, key, s);
	} else {
		g_free(key);
	}
	if (!s->file)
		return -ENOENT;
	*file = s->file;
	*line = s->line;
	return 0;
}

/* ------------------------------------------------------------ open and close */

static char **module_dirs(const struct atag_debuginfo_opts *opts, const char *vmlinux)
{
	GPtrArray *a = g_ptr_array_new();
	const char *r = opts->release;
	int i;

	if (opts->module_dirs) {
		for (i = 0; opts->module_dirs[i]; i++)
			g_ptr_array_add(a, g_strdup(opts->module_dirs[i]));
	} else {
		if (opts->vmlinux)
			g_ptr_array_add(a, g_path_get_dirname(vmlinux));
		if (r && *r && !strchr(r, '/')) {
			g_ptr_array_add(a, g_strdup_printf("/usr/lib/debug/lib/modules/%s", r));
			g_ptr_array_add(a, g_strdup_printf("/lib/modules/%s", r));
		}
	}
	g_ptr_array_add(a, NULL);
	return (char **)g_ptr_array_free(a, FALSE);
}

struct atag_debuginfo *atag_debuginfo_open(const struct atag_debuginfo_opts *opts, char *err,
					   size_t errlen)
{
	struct atag_debuginfo *di;
	char *path;
	int fd;

	path = opts->vmlinux ? g_strdup(opts->vmlinux) : default_vmlinux(opts->release);
	if (!path) {
		snprintf(err, errlen, "no vmlinux with debug information for kernel %s",
			 opts->release && *opts->release ? opts->release : "(release unknown)");
		errno = ENOENT;
		return NULL;
	}
	fd = atag_open_input(AT_FDCWD, path, 0);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, atag_strerror(errno));
		g_free(path);
		return NULL;
	}
	close(fd);
	di = g_new0(struct atag_debuginfo, 1);
	di->vmlinux = path;
	di->callbacks.find_elf = dwfl_build_id_find_elf;
	di->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	di->callbacks.section_address = dwfl_offline_section_address;
	di->modules = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, dmod_destroy);
	di->lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	di->strings = g_string_chunk_new(4096);
	di->module_dirs = module_dirs(opts, path);
	di->dwfl = dwfl_begin(&di->callbacks);
	if (!di->dwfl)
		goto bad;
	dwfl_report_begin(di->dwfl);
	di->kernel.mod = report_file(di->dwfl, "kernel", path);
	dwfl_report_end(di->dwfl, NULL, NULL);
	if (!di->kernel.mod)
		goto bad;
	index_symbols(&di->kernel);
	if (!g_hash_table_size(di->kernel.syms)) {
		snprintf(err, errlen, "%s: no function symbols (a stripped vmlinux?)", path);
		atag_debuginfo_close(di);
		errno = EINVAL;
		return NULL;
	}
	return di;
bad:
	snprintf(err, errlen, "%s: cannot read it as ELF: %s", path, dwfl_errmsg(-1));
	atag_debuginfo_close(di);
	errno = EINVAL;
	return NULL;
}

void atag_debuginfo_close(struct atag_debuginfo *di)
{
	if (!di)
		return;
	dmod_free(&di->kernel);
	g_hash_table_destroy(di->modules);
	if (di->module_files)
		g_hash_table_destroy(di->module_files);
	g_hash_table_destroy(di->lines);
	g_string_chunk_free(di->strings);
	if (di->dwfl)
		dwfl_end(di->dwfl);
	g_strfreev(di->module_dirs);
	g_free(di->vmlinux);
	g_free(di);
}

const char *atag_debuginfo_path(const struct atag_debuginfo *di)
{
	return di->vmlinux;
}
