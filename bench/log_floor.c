/* log_floor.c: the least a reader of a fio log can do, as a floor for the 1 GiB log import
 * (issue 35): read the file in 4 MiB pieces and parse each line's five integer columns
 * (time, value, ddir, bs, offset), summing each column so that nothing is optimized away.
 * One thread, no validation beyond digits and separators. Usage: log_floor FILE */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIECE (4 << 20)

int main(int argc, char **argv)
{
    int fd = argc == 2 ? open(argv[1], O_RDONLY) : -1;
    if (fd < 0)
        return 2;
    char *buf = malloc(2 * PIECE);
    uint64_t sum[5] = {0}, lines = 0;
    size_t have = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, PIECE);
        if (n < 0)
            return 3;
        have += (size_t)n;
        const char *p = buf, *end = buf + have;
        const char *last = n ? memrchr(buf, '\n', have) : end;
        if (!last)
            last = end;
        while (p < last) {
            for (int c = 0; c < 5 && p < last; c++) {
                uint64_t x = 0;
                while (*p >= '0' && *p <= '9')
                    x = x * 10 + (uint64_t)(*p++ - '0');
                sum[c] += x;
                while (p < last && (*p == ',' || *p == ' '))
                    p++;
            }
            while (p < last && *p != '\n')
                p++; /* a sixth column (prio) and the line end */
            p++;
            lines++;
        }
        have = (size_t)(end - (last < end ? last + 1 : end));
        memmove(buf, last < end ? last + 1 : end, have);
        if (!n)
            break;
    }
    printf("%llu lines, sums %llu %llu %llu %llu %llu\n", (unsigned long long)lines,
           (unsigned long long)sum[0], (unsigned long long)sum[1], (unsigned long long)sum[2],
           (unsigned long long)sum[3], (unsigned long long)sum[4]);
    free(buf);
    close(fd);
    return 0;
}
