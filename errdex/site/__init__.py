"""The build and its stages (plan, read, render, write, and the state an update
reads), the templates' helpers, and serving the site."""
