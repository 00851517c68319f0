// SQLite, the system library (Debian: libsqlite3-dev; every Apple platform ships it).
#if __has_include(<sqlite3.h>)
#include <sqlite3.h>
#else
#error "rotate needs SQLite's header and library: on Debian or Ubuntu, apt-get install libsqlite3-dev"
#endif
