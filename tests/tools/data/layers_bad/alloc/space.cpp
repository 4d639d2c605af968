// The shared space reaching up into the job: against the layers.
#include "src/job/job.hpp"
