/* mkman.c: the build's man page generator. Reads the manual in Markdown (docs/benchdb.1.md:
 * a "# name(section)" title, then "## NAME", "## SYNOPSIS", ...) and writes roff for man(7)
 * with cmark-gfm's man renderer: the title becomes the .TH line, "##" sections .SH and "###"
 * subsections .SS. Deterministic: the date is given (cmake/man.cmake: SOURCE_DATE_EPOCH or the
 * last commit's), never the wall clock.
 * usage: mkman IN.md OUT.1 SOURCE DATE (the .TH footer: "benchdb 0.4.0", "2026-12-03") */
#include <cmark-gfm.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *data = malloc(cap);
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            data = realloc(data, cap *= 2);
    }
    fclose(f);
    *len = n;
    return data;
}

/* The title heading's text, "benchdb(1)": name and section for .TH. */
static int parse_title(cmark_node *heading, char *name, size_t name_size, char *section)
{
    cmark_node *text = cmark_node_first_child(heading);
    const char *s = text ? cmark_node_get_literal(text) : NULL;
    const char *open = s ? strchr(s, '(') : NULL;
    if (!open || (size_t)(open - s) >= name_size || !isdigit((unsigned char)open[1]))
        return -1;
    for (size_t i = 0; s + i < open; i++)
        name[i] = (char)toupper((unsigned char)s[i]);
    name[open - s] = '\0';
    *section = open[1];
    return 0;
}

/* Sections are "##" in the Markdown (under the "#" title); man's .SH is level 1. */
static void promote_headings(cmark_node *doc)
{
    for (cmark_node *n = cmark_node_first_child(doc); n; n = cmark_node_next(n))
        if (cmark_node_get_type(n) == CMARK_NODE_HEADING && cmark_node_get_heading_level(n) > 1)
            cmark_node_set_heading_level(n, cmark_node_get_heading_level(n) - 1);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: mkman IN.md OUT.1 SOURCE DATE\n");
        return 2;
    }
    size_t len;
    char *md = read_all(argv[1], &len);
    if (!md) {
        perror(argv[1]);
        return 1;
    }
    cmark_node *doc = cmark_parse_document(md, len, CMARK_OPT_DEFAULT);
    cmark_node *title = cmark_node_first_child(doc);
    char name[64], section;
    if (!title || cmark_node_get_type(title) != CMARK_NODE_HEADING ||
        parse_title(title, name, sizeof(name), &section)) {
        fprintf(stderr, "%s:1: error: expected a title '# name(section)'\n", argv[1]);
        return 1;
    }
    cmark_node_free(title); /* unlinks it */
    promote_headings(doc);
    char *roff = cmark_render_man(doc, CMARK_OPT_DEFAULT, 0);
    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    fprintf(out, ".TH %s %c \"%s\" \"%s\" \"User Commands\"\n", name, section, argv[4], argv[3]);
    fputs(roff, out);
    int bad = fclose(out) != 0;
    free(roff);
    cmark_node_free(doc);
    free(md);
    return bad;
}
