# reader `dvdt_prof`: jansson for the (small) JSON profile.
LIBS_dvdt_prof := -ljansson
