"""Rating systems: Glicko-2 for Leaders, OpenSkill (Plackett–Luce) for Hidden Leaders."""
