/* dates.c: the SQL condition --since/--until add to a statement over runs. */
#include "db.h"

#include <inttypes.h>

void db_time_range_sql(struct buf *sql, const char *started_at, const struct time_range *range)
{
    if (!range || !time_range_bounded(range))
        return;
    /* whole numbers only, so they are written into the SQL rather than bound */
    buf_addf(sql, " AND %s BETWEEN %" PRId64 " AND %" PRId64, started_at, range->since,
             range->until);
}
