"""The Registro de Interdicciones de Acceso al Juego (art. 20.2, R1): the answers and the
port (``port``), the policy that chooses the online service or the replica and fails
closed (``policy``), and the snapshot files the replica imports (``snapshot``)."""
