from judge.cli.main import main

raise SystemExit(main())
