package browsertest

import "github.com/chromedp/chromedp"

func clickTutorial() chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS("#tutorial")) }

func clickHelp() chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS("#help summary")) }
