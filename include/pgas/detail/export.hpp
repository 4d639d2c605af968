// pgas/detail/export.hpp — PGAS_API, the one export macro. libpgas is built with hidden
// visibility: only declarations marked PGAS_API (the public API, and the out-of-line
// functions and variables that inline code in the public headers calls) are exported.
#pragma once

#define PGAS_API __attribute__((visibility("default")))
