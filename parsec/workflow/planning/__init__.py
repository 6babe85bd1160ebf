"""What the model is asked for (the plan, each step's commands) and what its reply must mean."""
