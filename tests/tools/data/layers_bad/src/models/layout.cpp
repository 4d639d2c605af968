// A pure model that includes a job-layer public header: against the layers.
#include <pgas/runtime.hpp>
#include <pgas/config.hpp>
