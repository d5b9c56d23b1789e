// A card worker that cannot start (as when its fonts are missing): every card fails at once.
throw new Error('fonts missing');
