/*
 * Paper as an engine (host/engine/engine.h): the policy run on the host by
 * sim_scenario, in this process, so a run is over when start returns and
 * there is nothing to finish. One at a time: sim_scenario is not
 * reentrant.
 */
#include "host/engine/engine.h"
#include "host/engine/sim/sim.h"

static int sim_engine_refuses(const struct engine_settings *e, const struct scenario *s, char *err, size_t errlen)
{
    (void)e;
    return sim_refuses(s, err, errlen);
}

static int sim_engine_jobs(const struct engine_settings *e)
{
    (void)e;
    return 1;
}

static int sim_engine_start(const struct engine_settings *e, struct engine_run *r, const char *dir,
                            struct scn_result *res, char *err, size_t errlen)
{
    (void)e;
    (void)dir;
    r->pid = 0;
    return sim_scenario(&r->sc, res, err, errlen);
}

const struct engine_ops sim_engine_ops = {
    .name = "sim",
    .refuses = sim_engine_refuses,
    .jobs = sim_engine_jobs,
    .start = sim_engine_start,
};
