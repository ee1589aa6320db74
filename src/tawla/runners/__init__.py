"""Where many independent tasks run: a local pool of processes (:mod:`tawla.runners.local`)
or a Dask cluster (:mod:`tawla.runners.cluster`, imported by name only when asked for), each
streaming the results back in the order of the tasks."""
