"""The browser table's page (`duelo serve`, `/table`): HTML, script and style, all
shipped here, so that the page fetches nothing from elsewhere."""
