"""What every area shares: who the browser is, the services, rate limits and the mail
allowance, error pages, headers, the slow-client guard, and the site-wide pages (the rules,
the app on a phone's home screen)."""
