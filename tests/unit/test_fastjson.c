/* test_fastjson.c: fastjson_parse against cJSON itself, the reference: whenever fastjson
 * gives a tree, cJSON gives the same one (types, keys, strings, valueint, the bits of
 * valuedouble, links) and the same end; fastjson may give up (NULL), never differ. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../core/array.h"
#include "../../core/xalloc.h"
#include "../../ingest/fastjson.h"
#include "harness.h"

static int same_tree(const cJSON *x, const cJSON *y)
{
    if (x->type != y->type || x->valueint != y->valueint ||
        memcmp(&x->valuedouble, &y->valuedouble, sizeof(double)) || (!x->string != !y->string) ||
        (x->string && strcmp(x->string, y->string)) || (!x->valuestring != !y->valuestring) ||
        (x->valuestring && strcmp(x->valuestring, y->valuestring)))
        return 0;
    const cJSON *a = x->child, *b = y->child;
    /* cJSON's first child's prev is the last child */
    const cJSON *a_last = a ? a->prev : NULL, *b_last = b ? b->prev : NULL;
    for (; a && b; a = a->next, b = b->next) {
        if (!same_tree(a, b) || (a == a_last) != (b == b_last) ||
            (a != x->child && (a->prev->next != a || b->prev->next != b)))
            return 0;
    }
    return !a && !b;
}

/* 1: fastjson parsed s as cJSON does; 0: it gave up; -1: it differs from cJSON. */
static int compare(const char *s, size_t len)
{
    struct arena a = {0};
    const char *fast_end = NULL, *ref_end = NULL;
    cJSON *fast = fastjson_parse(&a, s, len, &fast_end, NULL);
    cJSON *ref = cJSON_ParseWithLengthOpts(s, len, &ref_end, 0);
    int rc = !fast ? 0 : ref && fast_end == ref_end && same_tree(fast, ref) ? 1 : -1;
    cJSON_Delete(ref);
    arena_release(&a);
    return rc;
}

static int compare_str(const char *s)
{
    return compare(s, strlen(s));
}

/* Each case compared: want 1 (parsed as cJSON parses it) or 0 (left to cJSON). */
static void expect_all(const char *const *cases, size_t n, int want)
{
    for (size_t i = 0; i < n; i++)
        INT_EQ(compare_str(cases[i]), want, cases[i]);
}

static void test_values(void)
{
    static const char *const parsed[] = {
        "{}",
        "{ }",
        "{\"a\":1}",
        "{\"a\" :\t-0 ,\n\"b\": 007, \"c\": 123456789012345}",
        "{\"big\": 1234567890123456, \"odd\": 9007199254740993, \"huge\": 3000000000}",
        "{\"neg\": -3000000000, \"f\": 1.5, \"e\": -1e-3, \"E\": 1E+2, \"inf\": 1e400}",
        "{\"t\": true, \"f\": false, \"n\": null, \"s\": \"x y\", \"u\": \"\xc2\xb5s\"}",
        "{\"a\": [], \"b\": [1, [2, {}], \"three\"], \"c\": {\"d\": {\"e\": [null]}}}",
        "{\"dup\": 1, \"dup\": 2}",
        "{\"a\": 0.1, \"b\": 123.456, \"c\": -0.0, \"d\": 99999999999999.9, \"e\": 1.}",
        "{\"a\": 0.123456789012345, \"b\": 1.7976931348623157, \"c\": -.5, \"d\": 0.000}",
        /* strings and indentation over eight bytes (read a word at a time) */
        "{\"a key of 17 bytes\":               \"and a value of 24 bytes.\",\n"
        "                 \"b\": [1.25,         2e3]}",
    };
    expect_all(parsed, ARRAY_SIZE(parsed), 1);
    static const char *const left_to_cjson[] = {
        "{\"a\":\"x\\\"y\"}", /* an escape */
        "{\"a\":{}",          /* cJSON takes this for a whole object */
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{\"a\":nul}",
        "{\"a\":-}",
        "{\"a\":1.5.3}",
        "{1:2}",
        "[1]",
        "{\"a\":\"unterminated}",
        "{\"a\":\"an escape after 16 \\\" bytes\"}",
        "{\"a\":\"a line end after 17\n bytes\"}",
        "{\"a\":\"unterminated after 16 bytes",
        "{\"a\":1234567890123456789012345678901234567890123456789012345678901234}",
    };
    expect_all(left_to_cjson, ARRAY_SIZE(left_to_cjson), 0);
    char deep[512] = "";
    for (int i = 0; i < 70; i++)
        strcat(deep, "{\"a\":");
    INT_EQ(compare_str(deep), 0, "nesting deeper than 64: left to cJSON");
}

/* Random decimals of up to 17 digits, a point anywhere: those of up to 15 digits take the
 * fast path, the others strtod; each must equal cJSON's (strtod's) to the bit. */
static void test_random_decimals(void)
{
    srand(12);
    int differ = 0;
    for (int i = 0; i < 50000; i++) {
        char json[64], *p = json + sprintf(json, "{\"v\": %s", rand() % 2 ? "-" : "");
        int digits = 1 + rand() % 17, point = rand() % (digits + 1);
        for (int k = 0; k < digits; k++)
            p += sprintf(p, "%s%d", k == point && k ? "." : "", rand() % 10);
        strcpy(p, "}");
        if (compare_str(json) != 1 && ++differ < 5)
            fprintf(stderr, "not parsed as cJSON: %s\n", json);
    }
    INT_EQ(differ, 0, "random decimals: parsed, as cJSON parses them");
}

/* fastjson_decimal: strtod's double for a whole plain decimal, else 0 */
static void test_decimal(void)
{
    static const char *const plain[] = {"99.500000", "5", "0.010000", "-12.25", "100.000000"};
    for (size_t i = 0; i < ARRAY_SIZE(plain); i++) {
        double v = -1, want = strtod(plain[i], NULL);
        INT_EQ(fastjson_decimal(plain[i], strlen(plain[i]), &v), 1, plain[i]);
        OK(!memcmp(&v, &want, sizeof(v)), plain[i]);
    }
    static const char *const other[] = {"",    "-",     "1.",    ".5",
                                        "1e2", "99.5x", "1.2.3", "1234567890123456"};
    for (size_t i = 0; i < ARRAY_SIZE(other); i++) {
        double v;
        INT_EQ(fastjson_decimal(other[i], strlen(other[i]), &v), 0, other[i]);
    }
}

static void test_end(void)
{
    const char *s = "{\"a\": [1, 2]}\n{\"b\": 2}";
    struct arena a = {0};
    const char *end = NULL;
    cJSON *root = fastjson_parse(&a, s, strlen(s), &end, NULL);
    OK(root && end == s + 13, "end: just after the object's '}'");
    INT_EQ(compare_str(s), 1, "the first of two documents");
    INT_EQ(compare(s, 12), 0, "cut before the '}': given up");
    arena_release(&a);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        data = xrealloc(data, cap = cap * 2 + 4096);
        size_t n = fread(data + *len, 1, cap - *len, f);
        *len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    return data;
}

/* Every JSON document ('{' at the start of a line) of one file. */
static void test_file(const char *path, int *fast, int *docs)
{
    size_t len;
    char *data = read_all(path, &len);
    for (size_t i = 0; data && i < len; i++) {
        if (data[i] != '{' || (i && data[i - 1] != '\n'))
            continue;
        int rc = compare(data + i, len - i);
        if (rc < 0)
            fprintf(stderr, "differs: %s at byte %zu\n", path, i);
        OK(rc >= 0, "a fixture's document parsed as cJSON parses it");
        *fast += rc > 0;
        ++*docs;
    }
    free(data);
}

/* Every *.json file under dir_path (the fixtures of fio, iperf3, charts, fleet, ...). */
static void test_tree(const char *dir_path, int *fast, int *docs)
{
    DIR *dir = opendir(dir_path);
    OK(dir != NULL, dir_path);
    for (struct dirent *e; dir && (e = readdir(dir));) {
        char path[1024];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir_path, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            test_tree(path, fast, docs);
        else if (strlen(e->d_name) > 5 && !strcmp(e->d_name + strlen(e->d_name) - 5, ".json"))
            test_file(path, fast, docs);
    }
    if (dir)
        closedir(dir);
}

int main(void)
{
    test_values();
    test_random_decimals();
    test_decimal();
    test_end();
    int fast = 0, docs = 0;
    test_tree(getenv("FIXTURES"), &fast, &docs);
    printf("fixtures: %d of %d documents parsed by fastjson\n", fast, docs);
    OK(docs > 100 && fast * 10 >= docs * 9, "fastjson parses at least 9 in 10 fixture documents");
    return TEST_DONE();
}
